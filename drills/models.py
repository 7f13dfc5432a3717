"""Drills loaded from course content, learners' attempts, their review cards and mock interviews."""

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    SPOT_THE_BUG = "spot-the-bug", "Spot the bug"
    MATCH = "match", "Drag to match"
    QUIZ = "quiz", "Conceptual question"
    CARD = "card", "Interview card"


class Drill(models.Model):
    """One exercise; `data` holds the whole item, answers included, and never reaches a page raw."""

    module_slug = models.SlugField(max_length=80)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    slug = models.SlugField(max_length=120)
    title = models.CharField(max_length=300)
    section = models.SlugField(max_length=120, blank=True)
    topic = models.CharField(max_length=200, blank=True)
    order = models.PositiveIntegerField(default=0)
    data = models.JSONField()
    retired = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["module_slug", "kind", "order", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["module_slug", "kind", "slug"], name="drill_unique_per_module_kind"),
        ]
        indexes = [models.Index(fields=["module_slug", "retired"])]

    def __str__(self) -> str:
        return f"{self.module_slug}/{self.kind}/{self.slug}"


class MockInterview(models.Model):
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mock_interviews")
    minutes = models.PositiveSmallIntegerField()
    module_slugs = models.JSONField(default=list)
    drill_ids = models.JSONField(default=list)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"mock {self.pk} ({self.minutes} min) of {self.learner_id}"


class Attempt(models.Model):
    """One answer; `counts` is False for retries within the same round, which do not score."""

    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drill_attempts")
    drill = models.ForeignKey(Drill, on_delete=models.CASCADE, related_name="attempts")
    mock = models.ForeignKey(MockInterview, on_delete=models.CASCADE, null=True, blank=True, related_name="attempts")
    round_id = models.CharField(max_length=32, blank=True)
    answer = models.JSONField(default=dict)
    is_correct = models.BooleanField(null=True)
    score = models.FloatField(null=True)
    rating = models.PositiveSmallIntegerField(null=True, blank=True)
    counts = models.BooleanField(default=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["learner", "created_at"]), models.Index(fields=["learner", "drill"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(rating__isnull=True) | models.Q(rating__gte=1, rating__lte=4),
                name="attempt_rating_1_to_4",
            ),
            models.CheckConstraint(
                condition=models.Q(score__isnull=True) | models.Q(score__gte=0, score__lte=1),
                name="attempt_score_0_to_1",
            ),
            # A double click must not score a round twice.
            models.UniqueConstraint(
                fields=["learner", "drill", "round_id"],
                name="attempt_one_scoring_try_per_round",
                condition=models.Q(counts=True) & ~models.Q(round_id=""),
            ),
        ]

    def __str__(self) -> str:
        return f"attempt {self.pk} by {self.learner_id} on {self.drill_id}"

    @property
    def awaiting_rating(self) -> bool:
        return self.drill.kind == Kind.CARD and self.rating is None


class ReviewCard(models.Model):
    """A learner's spaced-repetition state (an fsrs Card as a dict) for one drill."""

    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_cards")
    drill = models.ForeignKey(Drill, on_delete=models.CASCADE, related_name="review_cards")
    card = models.JSONField()
    due = models.DateTimeField()
    last_rating = models.PositiveSmallIntegerField()
    passing = models.BooleanField()
    reviewed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["learner", "drill"], name="review_card_once_per_drill")]
        indexes = [models.Index(fields=["learner", "due"])]

    def __str__(self) -> str:
        return f"review of {self.drill_id} for {self.learner_id}, due {self.due:%Y-%m-%d %H:%M}"


class ReviewLog(models.Model):
    """One review of a card: what it was rated and the card as it stood before (for undo and the statistics)."""

    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_logs")
    drill = models.ForeignKey(Drill, on_delete=models.CASCADE, related_name="review_logs")
    attempt = models.ForeignKey(Attempt, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    rating = models.PositiveSmallIntegerField()
    reviewed_at = models.DateTimeField()
    was_due = models.BooleanField()  # the card existed and was due: these reviews measure retention
    before = models.JSONField(null=True)  # ReviewCard's fields before this review; null: there was no card

    class Meta:
        ordering = ["-reviewed_at", "-id"]
        indexes = [models.Index(fields=["learner", "reviewed_at"])]

    def __str__(self) -> str:
        return (
            f"review of {self.drill_id} by {self.learner_id} at {self.reviewed_at:%Y-%m-%d %H:%M}, rated {self.rating}"
        )
