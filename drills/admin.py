"""Admin views to inspect drills, attempts and review cards (content itself is edited in course/content)."""

from django.contrib import admin

from .models import Attempt, Drill, MockInterview, ReviewCard


@admin.register(Drill)
class DrillAdmin(admin.ModelAdmin):
    list_display = ("module_slug", "kind", "slug", "title", "retired")
    list_filter = ("kind", "retired", "module_slug")
    search_fields = ("slug", "title")


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ("learner", "drill", "is_correct", "score", "rating", "counts", "duration_ms", "created_at")
    list_filter = ("drill__kind", "counts")
    raw_id_fields = ("learner", "drill", "mock")


@admin.register(ReviewCard)
class ReviewCardAdmin(admin.ModelAdmin):
    list_display = ("learner", "drill", "due", "last_rating", "passing")
    raw_id_fields = ("learner", "drill")


@admin.register(MockInterview)
class MockInterviewAdmin(admin.ModelAdmin):
    list_display = ("learner", "minutes", "started_at", "finished_at")
    raw_id_fields = ("learner",)
