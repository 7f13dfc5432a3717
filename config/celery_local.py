"""One worker for the web tasks and the grading tasks in a single process (tests, a quick shell).

`make run` and self-hosted deployments run them apart (a web worker on the web queue, grading
workers on the grading queue), so a run's status reaches the page while another run is graded.
Start it with `celery -A config.celery_local worker -Q gpu,default --pool=solo`.
"""

import gpu_worker.heartbeat  # noqa: F401  (beats once the worker is ready)
from gpu_worker.celery_app import apply_worker_settings
from gpu_worker.experiment_runner.task import register_experiment_tasks
from gpu_worker.tasks import register_tasks

from .celery import app

apply_worker_settings(app)
register_tasks(app)
register_experiment_tasks(app)
