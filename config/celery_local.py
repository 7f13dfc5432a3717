"""One worker for `make run`: the web tasks and the GPU tasks in a single process.

Self-hosted deployments run them apart (web-worker and gpu-worker); on a laptop one
worker consuming `gpu,default` is enough. Start it with
`celery -A config.celery_local worker -Q gpu,default --pool=solo`.
"""
import gpu_worker.heartbeat  # noqa: F401  (beats every ~30 s once the worker is ready)
from gpu_worker.celery_app import apply_worker_settings
from gpu_worker.tasks import register_tasks

from .celery import app

apply_worker_settings(app)
register_tasks(app)
from gpu_worker.experiments.task import register_experiment_tasks; register_experiment_tasks(app)  # noqa: E402,E702
