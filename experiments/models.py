"""One experiment on the reference engine: a learner's knobs, their cache key, and the worker's result."""

from django.conf import settings
from django.db import models
from django.urls import reverse


class Experiment(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for a worker"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="experiments")
    config = models.JSONField(help_text="The normalized knobs, every one filled in.")
    config_hash = models.CharField(max_length=64, db_index=True)
    preset = models.SlugField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    from_cache = models.BooleanField(default=False, help_text="Served from an earlier identical run.")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["owner", "-created"], name="experiments_owner_created"),
            models.Index(fields=["config_hash", "status"], name="experiments_hash_status"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["queued", "running", "done", "failed"]), name="experiments_status_valid"
            )
        ]

    def __str__(self) -> str:
        return f"experiment {self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("experiments:detail", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status not in (self.Status.QUEUED, self.Status.RUNNING)
