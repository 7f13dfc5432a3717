"""The GPU host's own Celery app, `gpu_worker`: consumes queue `gpu`, knows only the broker.

Start it with `celery -A gpu_worker.celery_app worker -Q gpu --pool=solo`.
"""
import os
import sys
from pathlib import Path

# kombu imports django.utils when Django happens to be installed beside it. A worker process that
# starts here never needs Django, so it keeps it out; the web side loads Django first and is unaffected.
if "django" not in sys.modules:
    sys.modules["django"] = None  # type: ignore[assignment]

from celery import Celery  # noqa: E402

import gpu_worker.heartbeat  # noqa: F401,E402  (beats every ~10 s once the worker is ready)
from gpu_worker.contract.broker import transport_options  # noqa: E402
from gpu_worker.tasks import register_tasks  # noqa: E402

SOFT_TIME_LIMIT = int(os.environ.get("GPU_TASK_SOFT_TIME_LIMIT", "240"))
HARD_TIME_LIMIT = int(os.environ.get("GPU_TASK_HARD_TIME_LIMIT", "300"))
# A run whose worker died unacked comes back from Redis after this; the watchdog (gpu_worker/
# watchdog.py) ends every run by HARD_TIME_LIMIT, so a live run is never delivered twice. The web
# side's reaper waits longer than this (LABS["REAP_MARGIN_S"]), so the broker's redelivery goes first.
VISIBILITY_TIMEOUT = HARD_TIME_LIMIT + 60


def broker_transport_options(broker_url: str) -> dict:
    """Filesystem folders for the embedded broker; a visibility timeout above the hard limit."""
    folder = Path(os.environ.get("CELERY_FILESYSTEM_DIR", Path.cwd() / "var" / "broker"))
    return transport_options(broker_url, folder=folder, visibility_timeout=VISIBILITY_TIMEOUT)


def apply_worker_settings(app: Celery) -> None:
    """A GPU worker: one task at a time, acked late and redelivered if the worker dies mid-run.

    The time limits act only under a pool with child processes; under solo the watchdog in
    gpu_worker/tasks.py enforces HARD_TIME_LIMIT."""
    app.conf.update(
        worker_pool="solo",
        task_acks_late=True,
        worker_prefetch_multiplier=1,
        task_reject_on_worker_lost=True,
        task_soft_time_limit=SOFT_TIME_LIMIT,
        task_time_limit=HARD_TIME_LIMIT,
        worker_send_task_events=True,
    )
    options = dict(app.conf.broker_transport_options or {})
    if "visibility_timeout" in options:
        options["visibility_timeout"] = VISIBILITY_TIMEOUT
    app.conf.broker_transport_options = options


def _result_backend(broker_url: str) -> str:
    if broker_url.startswith("redis"):
        return broker_url
    folder = Path(os.environ.get("CELERY_RESULTS_DIR", Path.cwd() / "var" / "results"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"file://{folder}"


BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
app = Celery("gpu_worker", broker=BROKER_URL)
app.conf.update(
    result_backend=os.environ.get("CELERY_RESULT_BACKEND") or _result_backend(BROKER_URL),
    broker_transport_options=broker_transport_options(BROKER_URL),
    task_default_queue="gpu",
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_expires=3600,
    broker_connection_retry_on_startup=True,
)
apply_worker_settings(app)
register_tasks(app)
from gpu_worker.experiments.task import register_experiment_tasks; register_experiment_tasks(app)  # noqa: E402,E702
