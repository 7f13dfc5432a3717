"""What the review log gives a learner: undo of the last self-rating, and the statistics page's figures."""

from collections import Counter
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .answers import PASSING_RATING
from .models import Attempt, Kind, ReviewCard, ReviewLog
from .payload import AnswerError
from .review import CARD_FIELDS

UNDO_WINDOW = timedelta(minutes=30)  # a rating can be taken back this long after it was given
STATS_DAYS = 30


@transaction.atomic
def rating_undo(*, learner, attempt_id) -> Attempt:
    """Take back the learner's last review if it is their self-rating of `attempt_id`: the card returns to how it
    stood before, and the answer waits for a rating again. AnswerError when that is no longer possible."""
    last = ReviewLog.objects.select_for_update().filter(learner=learner).select_related("drill").first()
    try:
        wanted = int(attempt_id)
    except (TypeError, ValueError):
        wanted = None
    if last is None or last.attempt_id is None or last.attempt_id != wanted or last.drill.kind != Kind.CARD:
        raise AnswerError("Only your last rating can be undone, and this was not it.")
    if timezone.now() - last.reviewed_at > UNDO_WINDOW:
        raise AnswerError("That rating is more than 30 minutes old; rate the card again when it comes back.")
    attempt = Attempt.objects.select_for_update().get(pk=last.attempt_id)
    card = ReviewCard.objects.filter(learner=learner, drill=last.drill).first()
    if last.before is None:
        if card is not None:
            card.delete()
    elif card is not None:
        for name in CARD_FIELDS:
            value = last.before[name]
            setattr(card, name, parse_datetime(value) if name in ("due", "reviewed_at") else value)
        card.save(update_fields=list(CARD_FIELDS))
    answer = {key: value for key, value in attempt.answer.items() if key != "covered"}
    attempt.answer, attempt.rating, attempt.is_correct, attempt.score = answer, None, None, None
    attempt.save(update_fields=["answer", "rating", "is_correct", "score"])
    last.delete()
    return attempt


def undoable_attempt_id(*, learner, drill) -> int | None:
    """The attempt whose rating the learner may still undo on this drill's page, if their last review is it."""
    last = ReviewLog.objects.filter(learner=learner).only("attempt_id", "drill_id", "reviewed_at").first()
    if last is None or last.drill_id != drill.pk or last.attempt_id is None:
        return None
    return last.attempt_id if timezone.now() - last.reviewed_at <= UNDO_WINDOW else None


def review_stats(*, learner, now: datetime | None = None, days: int = STATS_DAYS) -> dict:
    """Reviews a day over the last `days` days, retention (due reviews rated Good or Easy), and how many items
    come due on each of the next `days` days (what is overdue counts today)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    first_day = today - timedelta(days=days - 1)
    since = timezone.make_aware(datetime.combine(first_day, datetime.min.time()))
    logs = list(
        ReviewLog.objects.filter(learner=learner, reviewed_at__gte=since).values_list(
            "reviewed_at", "rating", "was_due"
        )
    )
    per_day = Counter(timezone.localdate(at) for at, _, _ in logs)
    due_reviews = [rating for _, rating, was_due in logs if was_due]
    passed = sum(1 for rating in due_reviews if rating >= PASSING_RATING)
    forecast = Counter(
        max(today, timezone.localdate(due))
        for due in ReviewCard.objects.filter(learner=learner, drill__retired=False).values_list("due", flat=True)
        if timezone.localdate(due) < today + timedelta(days=days)
    )
    past = [first_day + timedelta(days=n) for n in range(days)]
    ahead = [today + timedelta(days=n) for n in range(days)]
    return {
        "reviews": len(logs),
        "due_reviews": len(due_reviews),
        "retention": round(100 * passed / len(due_reviews)) if due_reviews else None,
        "cards": ReviewCard.objects.filter(learner=learner, drill__retired=False).count(),
        "history": {"days": [d.isoformat() for d in past], "counts": [per_day[d] for d in past]},
        "forecast": {"days": [d.isoformat() for d in ahead], "counts": [forecast[d] for d in ahead]},
    }
