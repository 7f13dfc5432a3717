"""The lab catalogue and learners' submissions with their graded results."""

from django.conf import settings
from django.db import models

from common.url_memo import reverse_cached
from gpu_worker import contract
from labs.board_specs import SPECS


class Lab(models.Model):
    """One lab, loaded from labs/content/<slug>/ by `manage.py load_labs`."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    module_slug = models.SlugField(help_text="The course module this lab belongs to.")
    order = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True)
    statement_html = models.TextField(blank=True)
    contract = models.TextField(blank=True)
    starter_code = models.TextField(blank=True)
    limits = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse_cached("labs:detail", [self.slug])

    @property
    def has_leaderboard(self) -> bool:
        """Only labs with a speed the grader measures have a board."""
        return self.slug in SPECS

    @property
    def wall_s(self) -> float:
        """How long one run may take in the sandbox (the worker's default when the lab names none)."""
        return float(self.limits.get("wall_s", settings.LABS["DEFAULT_WALL_S"]))


class Submission(models.Model):
    class Mode(models.TextChoices):
        RUN = "run", "Run"
        SUBMIT = "submit", "Submit"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    Verdict = contract.Verdict  # how a done run ended; `verdict` holds one of these (or "" before then)
    VERDICTS = contract.VERDICTS

    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_submissions")
    lab = models.ForeignKey(Lab, on_delete=models.PROTECT, related_name="submissions")
    mode = models.CharField(max_length=8, choices=Mode.choices)
    source = models.TextField()
    # A Run on the learner's own input (gpu_worker/contract/custom_input.py), checked; null: the public cases.
    custom_input = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=16, blank=True)
    message = models.TextField(blank=True)
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    worker_host = models.CharField(max_length=200, blank=True)
    deliveries = models.PositiveSmallIntegerField(default=1, help_text="How many times it was sent to a worker.")
    regrade_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="regrades")
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(auto_now_add=True, help_text="When it was last sent to a worker.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["learner", "lab", "-created_at"], name="labs_sub_learner_lab"),
            models.Index(fields=["lab", "mode", "status"], name="labs_sub_lab_mode_status"),
            models.Index(fields=["status", "queued_at"], name="labs_sub_status_queued"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(mode__in=["run", "submit"]), name="labs_sub_mode_valid"),
            models.CheckConstraint(
                condition=models.Q(status__in=["queued", "running", "done"]), name="labs_sub_status_valid"
            ),
            # One waiting run per learner per lab (regrades by an instructor do not count).
            models.UniqueConstraint(
                fields=["learner", "lab"],
                name="labs_sub_one_waiting_per_lab",
                condition=models.Q(status__in=["queued", "running"], regrade_of__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.lab_id} {self.mode} by {self.learner_id}: {self.status} {self.verdict}"

    def get_absolute_url(self) -> str:
        return reverse_cached("labs:submission", [self.pk])

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def is_scored(self) -> bool:
        return self.mode == self.Mode.SUBMIT and self.score is not None

    @property
    def duration_s(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.created_at).total_seconds()


class LabDraft(models.Model):
    """The code a learner is writing for a lab, saved as they type so it follows them to any device."""

    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lab_drafts")
    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="drafts")
    source = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["learner", "lab"], name="labs_draft_once_per_lab")]

    def __str__(self) -> str:
        return f"draft of {self.lab_id} by {self.learner_id}"


class CohortBoard(models.Model):
    """An instructor's choice to hide a lab's leaderboard from one cohort's learners (shown when no row exists)."""

    cohort = models.ForeignKey("cohorts.Cohort", on_delete=models.CASCADE, related_name="leaderboard_settings")
    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="leaderboard_settings")
    hidden = models.BooleanField(default=False)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["cohort", "lab"], name="labs_board_once_per_cohort")]

    def __str__(self) -> str:
        return f"board of {self.lab_id} in {self.cohort_id}: {'hidden' if self.hidden else 'shown'}"


class SubmissionComment(models.Model):
    """An instructor's note on a submission, on one line of its code or on the whole; its learner reads it."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    line = models.PositiveIntegerField(null=True, blank=True)  # 1-based; null: about the whole submission
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["line", "created_at", "id"]

    def __str__(self) -> str:
        return f"comment on {self.submission_id}" + (f" line {self.line}" if self.line else "")


class RegradeRequest(models.Model):
    """A learner asks for a submission to be looked at again; an instructor answers (and may regrade it)."""

    class Status(models.TextChoices):
        OPEN = "open", "waiting for an instructor"
        ANSWERED = "answered", "answered"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="regrade_requests")
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="regrade_requests")
    reason = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    answer = models.TextField(blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    answered_at = models.DateTimeField(null=True, blank=True)
    regrade = models.ForeignKey(Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission"], condition=models.Q(status="open"), name="labs_one_open_request_per_submission"
            )
        ]

    def __str__(self) -> str:
        return f"regrade request on {self.submission_id} ({self.status})"
