"""The grading host's own Celery app, `gpu_worker`: consumes the grading queue, knows only the broker.

Start it with `celery -A gpu_worker.celery_app worker -Q gpu --pool=solo`.
"""

import os
import sys

# kombu imports django.utils when Django happens to be installed beside it. A worker process that
# starts here never needs Django, so it keeps it out; the web side loads Django first and is unaffected.
if "django" not in sys.modules:
    sys.modules["django"] = None  # type: ignore[assignment]

from celery import Celery

import gpu_worker.heartbeat  # noqa: F401  (beats once the worker is ready)
from gpu_worker.contract import wire
from gpu_worker.experiment_runner.task import register_experiment_tasks
from gpu_worker.tasks import register_tasks


def apply_worker_settings(app: Celery) -> None:
    """A GPU worker: one task at a time, acked late and redelivered if the worker dies mid-run.

    The time limits act only under a pool with child processes; under solo the watchdog
    (gpu_worker/watchdog.py) enforces the hard limit. A run whose worker died unacknowledged comes
    back from Redis after the visibility timeout, which is longer than the hard limit, so a live run
    is never delivered twice; the web side's reaper waits longer still (LABS["REAP_MARGIN_S"])."""
    app.conf.update(
        worker_pool="solo",
        task_acks_late=True,
        worker_prefetch_multiplier=1,
        task_reject_on_worker_lost=True,
        task_soft_time_limit=wire.SOFT_TIME_LIMIT_S,
        task_time_limit=wire.HARD_TIME_LIMIT_S,
        worker_send_task_events=True,
    )
    app.conf.broker_transport_options = dict(wire.BROKER_TRANSPORT_OPTIONS)


BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
app = Celery("gpu_worker", broker=BROKER_URL)
app.conf.update(
    result_backend=os.environ.get("CELERY_RESULT_BACKEND") or BROKER_URL,
    task_default_queue=wire.GRADING_QUEUE,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_expires=3600,
    broker_connection_retry_on_startup=True,
)
apply_worker_settings(app)
register_tasks(app)
register_experiment_tasks(app)
