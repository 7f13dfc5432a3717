"""The last word from each Celery worker, recorded as it arrives."""

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last word from each Celery worker (gpu_worker/heartbeat.py sends one every few seconds)."""

    name = models.CharField(max_length=200, unique=True, help_text="The worker's node name, else its host.")
    host = models.CharField(max_length=200)
    info = models.JSONField(default=dict)
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return f"{self.name} @ {self.last_seen:%H:%M:%S}"
