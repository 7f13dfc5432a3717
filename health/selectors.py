"""Reads of the workers' heartbeats for the instructor's queue page."""

from datetime import timedelta

from django.utils import timezone

from gpu_worker.contract import wire
from health.models import WorkerHeartbeat


def workers(*, now=None) -> list[dict]:
    """Every worker that ever beat, newest first, with whether it is alive now (the same rule as /healthz)."""
    now = now or timezone.now()
    return [
        {
            "name": beat.name,
            "host": beat.host,
            "info": beat.info,
            "last_seen": beat.last_seen,
            "age_s": round((now - beat.last_seen).total_seconds()),
            "online": beat.last_seen >= now - timedelta(seconds=wire.WORKER_FRESH_S),
        }
        for beat in WorkerHeartbeat.objects.all()
    ]
