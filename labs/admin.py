"""Admin for the lab catalogue and submissions (read-mostly: results come from the worker)."""

from django.contrib import admin

from labs.models import Lab, Submission


@admin.register(Lab)
class LabAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "module_slug", "order")
    search_fields = ("slug", "title")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "lab", "learner", "mode", "status", "verdict", "score", "deliveries", "created_at")
    list_filter = ("status", "mode", "verdict", "lab")
    search_fields = ("learner__username",)
    raw_id_fields = ("learner", "regrade_of")
    readonly_fields = ("created_at", "queued_at", "started_at", "finished_at")
