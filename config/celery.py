"""The web side's Celery app: tasks on the web queue; the grading workers are reached by task name."""

import os

import django  # noqa: F401  (first: gpu_worker keeps Django out of processes that import it before Django)
from celery import Celery

import gpu_worker.heartbeat  # noqa: F401  (the web worker beats too, so /healthz sees it)
from gpu_worker.contract import wire

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.broker_transport_options = dict(wire.BROKER_TRANSPORT_OPTIONS)
app.autodiscover_tasks()
