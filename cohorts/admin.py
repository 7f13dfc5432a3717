"""Cohorts in the Django admin (site admins fix what the pages cannot)."""

from django.contrib import admin

from cohorts.models import Cohort, CohortLab, Extension, GradeRelease, Invitation, Membership, ScoreOverride


class MembershipInline(admin.TabularInline):
    model = Membership
    raw_id_fields = ["learner"]
    extra = 0


class CohortLabInline(admin.TabularInline):
    model = CohortLab
    extra = 0


@admin.register(Cohort)
class CohortAdmin(admin.ModelAdmin):
    list_display = ["name", "join_code", "created_at"]
    filter_horizontal = ["instructors"]
    inlines = [MembershipInline, CohortLabInline]


@admin.register(ScoreOverride)
class ScoreOverrideAdmin(admin.ModelAdmin):
    list_display = ["cohort", "learner", "kind", "target_slug", "score", "created_by", "created_at", "undone_at"]
    list_filter = ["kind", "cohort"]
    raw_id_fields = ["learner", "created_by", "undone_by"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["email", "cohort", "status", "invited_by", "created_at", "answered_at"]
    list_filter = ["status", "cohort"]


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    list_display = ["cohort", "learner", "lab_slug", "due_at", "created_by", "created_at"]
    list_filter = ["cohort"]
    raw_id_fields = ["learner", "created_by"]


@admin.register(GradeRelease)
class GradeReleaseAdmin(admin.ModelAdmin):
    list_display = ["cohort", "lab_slug", "released_by", "released_at"]
    list_filter = ["cohort"]
    raw_id_fields = ["released_by"]
