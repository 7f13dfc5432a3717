"""Cohorts: their rosters, invitations, the terms each lab has in a cohort, and score overrides with an audit trail."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(8))


class CohortQuerySet(models.QuerySet):
    def visible_to(self, user) -> "CohortQuerySet":
        """Every cohort for a superuser; the cohorts a user teaches otherwise."""
        if not user.is_authenticated:
            return self.none()
        if user.is_superuser:
            return self.all()
        return self.filter(instructors=user)


class Cohort(models.Model):
    name = models.CharField(max_length=120)
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    instructors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="cohorts_taught")
    learners = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="cohorts_joined")
    drill_weight = models.FloatField(default=0.0, help_text="Weight of the mean drill mastery in the total.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CohortQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.CheckConstraint(condition=Q(drill_weight__gte=0), name="cohort_drill_weight_gte_0")]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="memberships")
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["cohort", "learner"], name="membership_once_per_cohort")]

    def __str__(self) -> str:
        return f"{self.learner_id} in {self.cohort_id}"


class Invitation(models.Model):
    """An instructor's offer of a seat, addressed to an e-mail: membership starts only when its owner accepts."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        WITHDRAWN = "withdrawn", "Withdrawn"

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(help_text="Stored lower-case; matched against the signed-in user's address.")
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["cohort", "email"], condition=Q(status="pending"), name="invitation_one_pending_per_email"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "accepted", "declined", "withdrawn"]), name="invitation_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.email} to {self.cohort_id}: {self.status}"


class CohortLab(models.Model):
    """A lab as one cohort takes it: its due dates, late penalty and weight."""

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="cohort_labs")
    lab_slug = models.SlugField()
    due_at = models.DateTimeField(null=True, blank=True)
    late_due_at = models.DateTimeField(null=True, blank=True, help_text="After it a submission scores zero.")
    percent_per_day = models.FloatField(default=0.0, help_text="Percent off per started day after the due date.")
    weight = models.FloatField(default=1.0)

    class Meta:
        ordering = ["lab_slug"]
        constraints = [
            models.UniqueConstraint(fields=["cohort", "lab_slug"], name="lab_policy_once_per_cohort"),
            models.CheckConstraint(
                condition=Q(percent_per_day__gte=0, percent_per_day__lte=100), name="lab_policy_percent_0_100"
            ),
            models.CheckConstraint(condition=Q(weight__gte=0), name="lab_policy_weight_gte_0"),
            models.CheckConstraint(
                condition=Q(late_due_at__isnull=True) | Q(due_at__isnull=False, late_due_at__gte=models.F("due_at")),
                name="lab_policy_late_after_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.lab_slug} in {self.cohort_id}"


class ScoreOverride(models.Model):
    """A score an instructor set by hand, with the reason; undoing keeps the row for the audit list."""

    class Kind(models.TextChoices):
        LAB = "lab", "Lab"
        MODULE = "module", "Module"

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="overrides")
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="score_overrides")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    target_slug = models.SlugField(max_length=120)
    score = models.FloatField()
    max_score = models.FloatField()
    reason = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    undone_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The override that replaced this one, when a newer one did.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["cohort", "learner"], name="override_cohort_learner")]
        constraints = [
            # Two live overrides of one target would leave the grade to whichever sorts last.
            models.UniqueConstraint(
                fields=["cohort", "learner", "kind", "target_slug"],
                condition=Q(undone_at__isnull=True),
                name="override_one_active_per_target",
            ),
            models.CheckConstraint(condition=Q(kind__in=["lab", "module"]), name="override_kind_valid"),
            models.CheckConstraint(
                condition=Q(score__gte=0, score__lte=models.F("max_score")), name="override_score_in_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.target_slug} = {self.score} for {self.learner_id}"

    @property
    def is_active(self) -> bool:
        return self.undone_at is None


class Extension(models.Model):
    """One learner's own due date for one lab in a cohort: the late rule judges their submits by it (cohorts/terms.py).
    Removing it deletes the row; the learner is back on the cohort's terms."""

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="extensions")
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions")
    lab_slug = models.SlugField()
    due_at = models.DateTimeField()
    reason = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["lab_slug", "learner_id"]
        constraints = [
            models.UniqueConstraint(fields=["cohort", "learner", "lab_slug"], name="extension_once_per_learner_lab")
        ]

    def __str__(self) -> str:
        return f"{self.lab_slug} due {self.due_at:%Y-%m-%d %H:%M} for {self.learner_id} in {self.cohort_id}"


class GradeRelease(models.Model):
    """A lab's grades released to a cohort's learners: until this row exists they see their verdicts and
    the grader's scores, not the score that counts (late rule, overrides)."""

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="grade_releases")
    lab_slug = models.SlugField()
    released_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    released_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["lab_slug"]
        constraints = [models.UniqueConstraint(fields=["cohort", "lab_slug"], name="grade_release_once_per_lab")]

    def __str__(self) -> str:
        return f"{self.lab_slug} released in {self.cohort_id}"
