"""The web side's Celery app: tasks on queue `default`; the GPU worker is reached by name."""
import os

import django  # noqa: F401  (first: gpu_worker keeps Django out of processes that import it before Django)
from celery import Celery

import gpu_worker.heartbeat  # noqa: F401  (the web worker beats too, so /healthz sees it)
from gpu_worker.contract.broker import transport_options

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _transport_options() -> dict:
    from django.conf import settings

    # Web tasks take well under a second; a killed web worker's task comes back after 120 s.
    return transport_options(settings.CELERY_BROKER_URL, folder=settings.CELERY_FILESYSTEM_DIR,
                             visibility_timeout=120)


app.conf.broker_transport_options = _transport_options()
if app.conf.result_backend and app.conf.result_backend.startswith("file://"):
    os.makedirs(app.conf.result_backend[len("file://"):], exist_ok=True)
app.autodiscover_tasks()
