"""Course modules, their sections, and which sections each learner has read."""

from django.conf import settings
from django.db import models

RESOURCE_LABELS = {
    "kv-memory": "KV-cache memory",
    "memory-bandwidth": "Memory bandwidth",
    "interconnect-bandwidth": "Interconnect bandwidth",
    "latency": "Latency",
}


class Module(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    order = models.PositiveSmallIntegerField()
    tagline = models.TextField(blank=True)
    bound_resource = models.CharField(max_length=40)
    bound_technique = models.CharField(max_length=200)
    summary_html = models.TextField(blank=True)
    labs = models.JSONField(default=list, blank=True)
    widgets = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)  # [{title, url, note}], shown after the last section

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return f"{self.order}. {self.title}"

    @property
    def bound_resource_label(self) -> str:
        return RESOURCE_LABELS.get(self.bound_resource, self.bound_resource)


class Section(models.Model):
    module = models.ForeignKey(Module, on_delete=models.CASCADE, related_name="sections")
    slug = models.SlugField(max_length=120)
    title = models.CharField(max_length=200)
    order = models.PositiveSmallIntegerField()
    body_html = models.TextField()

    class Meta:
        ordering = ["module__order", "order"]
        constraints = [
            models.UniqueConstraint(fields=["module", "slug"], name="section_unique_slug_per_module"),
        ]

    def __str__(self) -> str:
        return f"{self.module.slug}/{self.slug}"


class SectionRead(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sections_read")
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="reads")
    read_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "section"], name="section_read_once_per_user"),
        ]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.section_id}"
