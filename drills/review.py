"""Spaced repetition with fsrs: every counted answer reviews the learner's card for that drill."""

import random
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import FUZZ_RANGES

from .answers import PASSING_RATING, RATINGS
from .models import Attempt, Drill, Kind, ReviewCard, ReviewLog


class CardScheduler(Scheduler):
    """fsrs's scheduler with its fuzz drawn once per card state: the interval a rating button shows is the
    interval that rating then schedules (fsrs draws `random()` afresh on every call)."""

    def __init__(self, *, fuzz_draw: float, **options):
        super().__init__(**options)
        self.fuzz_draw = fuzz_draw  # in [0, 1): where in fsrs's fuzz range the interval lands

    def _get_fuzzed_interval(self, *, interval: timedelta) -> timedelta:
        days = interval.days
        if days < 2.5:  # as fsrs: no fuzz below 2.5 days
            return interval
        delta = 1.0 + sum(r["factor"] * max(min(float(days), r["end"]) - r["start"], 0.0) for r in FUZZ_RANGES)
        low, high = max(2, round(days - delta)), min(round(days + delta), self.maximum_interval)
        low = min(low, high)
        return timedelta(days=min(round(self.fuzz_draw * (high - low + 1) + low), self.maximum_interval))


def fuzz_draw_for(card: Card) -> float:
    """The same card, reviewed from the same state, always draws the same fuzz."""
    return random.Random(f"{card.card_id}:{card.last_review}:{card.stability}:{card.step}").random()


def scheduler(card: Card | None = None) -> Scheduler:
    """Learning steps (seconds) come from settings so a deployment (or a test) can tune them."""
    learning = getattr(settings, "DRILLS_REVIEW_LEARNING_STEPS", (60, 600))
    relearning = getattr(settings, "DRILLS_REVIEW_RELEARNING_STEPS", (600,))
    return CardScheduler(
        fuzz_draw=fuzz_draw_for(card) if card is not None else 0.5,
        learning_steps=tuple(timedelta(seconds=s) for s in learning),
        relearning_steps=tuple(timedelta(seconds=s) for s in relearning),
    )


RATING_LABELS = tuple((Rating(value), label) for value, label in RATINGS.items())


def interval_words(delta: timedelta) -> str:
    """A review interval as a person says it: "under a minute", "10 min", "5 h", "3 days"."""
    seconds = max(0, delta.total_seconds())
    if seconds < 60:
        return "under a minute"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    if seconds < 86400:
        return f"{round(seconds / 3600)} h"
    days = round(seconds / 86400)
    return "1 day" if days == 1 else f"{days} days"


def rating_hints(*, learner, drill: Drill, now: datetime | None = None) -> list[dict]:
    """For each of Again/Hard/Good/Easy, when the drill would come back if rated so now (fsrs, not stored)."""
    now = now or timezone.now()
    existing = ReviewCard.objects.filter(learner=learner, drill=drill).first() if learner.is_authenticated else None
    card = Card.from_dict(existing.card) if existing else new_card(now)
    hints = []
    for rating, label in RATING_LABELS:
        preview, _log = scheduler(card).review_card(Card.from_dict(card.to_dict()), rating, review_datetime=now)
        hints.append({"value": int(rating), "label": label, "interval": interval_words(preview.due - now)})
    return hints


def rating_for_score(score: float) -> Rating:
    """Auto-graded drills: all right is Good, half or more is Hard, less is Again."""
    if score >= 1:
        return Rating.Good
    return Rating.Hard if score >= 0.5 else Rating.Again


def new_card(at: datetime) -> Card:
    """A card never reviewed. Its id is the moment, as fsrs makes it, but given: fsrs's own default sleeps 1 ms
    per card to keep ids apart, and ours are never compared (a card is one row per learner and drill)."""
    return Card(card_id=int(at.timestamp() * 1000))


_UNREAD = object()


CARD_FIELDS = ("card", "due", "last_rating", "passing", "reviewed_at")


def card_fields(card: ReviewCard) -> dict:
    """A card's stored fields as JSON (what a ReviewLog keeps to undo a review)."""
    return {
        name: getattr(card, name).isoformat() if name in ("due", "reviewed_at") else getattr(card, name)
        for name in CARD_FIELDS
    }


def review_record(
    *,
    learner,
    drill: Drill,
    rating: int,
    at: datetime | None = None,
    existing: ReviewCard | None | object = _UNREAD,
    attempt=None,
) -> ReviewCard:
    """Review the learner's card for `drill` (`existing`: that card, or None, when the caller has just read it),
    and log the review with the card as it stood before."""
    at = at or timezone.now()
    if existing is _UNREAD:
        existing = ReviewCard.objects.filter(learner=learner, drill=drill).first()
    card = Card.from_dict(existing.card) if existing else new_card(at)
    log = ReviewLog(
        learner=learner,
        drill=drill,
        attempt=attempt,
        rating=int(rating),
        reviewed_at=at,
        was_due=bool(existing and existing.due <= at),
        before=card_fields(existing) if existing else None,
    )
    card, _log = scheduler(card).review_card(card, Rating(rating), review_datetime=at)
    fields = {
        "card": card.to_dict(),
        "due": card.due,
        "last_rating": int(rating),
        "passing": rating >= PASSING_RATING,
        "reviewed_at": at,
    }
    if existing:
        for name, value in fields.items():
            setattr(existing, name, value)
        existing.save(update_fields=list(fields))
        log.save()
        return existing
    try:
        with transaction.atomic():  # a savepoint: another first answer may have made the card since it was read
            created = ReviewCard.objects.create(learner=learner, drill=drill, **fields)
    except IntegrityError:  # it did (on PostgreSQL two first answers can race; SQLite writers take turns)
        return review_record(learner=learner, drill=drill, rating=rating, at=at, attempt=attempt)
    log.save()
    return created


def rates_early(attempt: Attempt, card: ReviewCard | None) -> bool:
    """A question card answered before it is due, in a round of its own: its self-rating reviews the card early,
    as Anki's review-ahead does (fsrs weighs the short gap), though the answer does not score. A retry in a round
    whose first try counted, and an auto-graded drill answered early, stay practice: they move nothing."""
    if attempt.counts or card is None or card.due <= attempt.created_at or attempt.drill.kind != Kind.CARD:
        return False
    return not (
        attempt.round_id
        and Attempt.objects.filter(
            learner_id=attempt.learner_id, drill_id=attempt.drill_id, round_id=attempt.round_id, counts=True
        ).exists()
    )
