"""Reads: what is due, mastery per module, and a learner's own attempts. Other apps call these."""

from collections import defaultdict
from datetime import datetime

from django.core.cache import cache
from django.db.models import Count, Max, Min, Q, QuerySet
from django.utils import timezone

from common.readcache import TIMEOUT_S, content_key, enabled, forget, remember_content

from .models import Attempt, Drill, ReviewCard, ReviewLog


def active_drills() -> QuerySet[Drill]:
    return Drill.objects.filter(retired=False)


def drills_due_for(*, learner, now: datetime | None = None) -> QuerySet[Drill]:
    """Drills whose review card is due, soonest first; each carries `due` from its card."""
    now = now or timezone.now()
    return (
        active_drills()
        .filter(review_cards__learner=learner, review_cards__due__lte=now)
        .annotate(due=Max("review_cards__due"))
        .order_by("due", "pk")
    )


def due_count(*, learner) -> int:
    return ReviewCard.objects.filter(learner=learner, due__lte=timezone.now(), drill__retired=False).count()


def due_badge_key(learner_id) -> str:
    return content_key(f"review-due:{learner_id}")  # retiring a drill changes the count too


def card_saved(sender, instance, **kwargs) -> None:
    """A signal receiver (drills/apps.py): a review card changed, so its learner's badge is recounted."""
    forget(due_badge_key(instance.learner_id))


def due_badge(*, learner) -> int:
    """`due_count` for the navigation badge on every page: kept in the cache with the moment the next card
    comes due, until then or until one of the learner's cards changes (drills/apps.py)."""
    if not enabled():
        return due_count(learner=learner)
    key, now = due_badge_key(learner.pk), timezone.now()
    cached = cache.get(key)
    if cached is not None and (cached[1] is None or now < cached[1]):
        return cached[0]
    figures = ReviewCard.objects.filter(learner=learner, drill__retired=False).aggregate(
        due_now=Count("pk", filter=Q(due__lte=now)), next_due_at=Min("due", filter=Q(due__gt=now))
    )
    _keep_badge(learner.pk, figures["due_now"], figures["next_due_at"])
    return figures["due_now"]


def _keep_badge(learner_id, due_now: int, next_due_at: datetime | None) -> None:
    if enabled():
        cache.set(due_badge_key(learner_id), (due_now, next_due_at), TIMEOUT_S)


def _cards(*, learner) -> list[tuple[int, datetime, datetime | None]]:
    """(drill id, due, reviewed at) of each of the learner's cards on an active drill, in one query. There is at
    most one card per drill, so the review figures below count these rows in Python rather than compile one
    aggregate query per figure."""
    retired = retired_drill_ids()
    return [
        row
        for row in ReviewCard.objects.filter(learner=learner).values_list("drill_id", "due", "reviewed_at")
        if row[0] not in retired
    ]


def retired_drill_ids() -> frozenset[int]:
    return remember_content(
        "drills-retired", lambda: frozenset(Drill.objects.filter(retired=True).values_list("pk", flat=True))
    )


def _day(learner, cards: list[tuple], now: datetime) -> dict:
    start_of_day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return {
        # reviews, not items: an item reviewed twice today counts twice, as in Anki
        "reviewed_today": ReviewLog.objects.filter(learner=learner, reviewed_at__gte=start_of_day).count(),
        "next_due_at": min((due for _, due, _ in cards if due > now), default=None),
        "now": now,
    }


def review_day(*, learner, now: datetime | None = None) -> dict:
    """How many reviews the learner made today and when the next not-yet-due item comes due (two queries)."""
    return _day(learner, _cards(learner=learner), now or timezone.now())


def review_session(*, learner, current: Drill | None = None, now: datetime | None = None) -> dict:
    """Where the learner's review session stands after an answer: the next due item (not the one just
    answered), how many others are due, the day's figures, and when the answered item comes back. The same
    rows give the navigation badge its count, so the page after an answer does not count them again."""
    cards = _cards(learner=learner)
    day = _day(learner, cards, now or timezone.now())
    current_id = current.pk if current is not None else None
    due = sorted((due_at, drill_id) for drill_id, due_at, _ in cards if due_at <= day["now"])
    others = [drill_id for _, drill_id in due if drill_id != current_id]
    _keep_badge(learner.pk, len(due), day["next_due_at"])
    return {
        **day,
        "due_count": len(others),
        "this_due_at": next((due_at for drill_id, due_at, _ in cards if drill_id == current_id), None),
        "next": drill_by_pk(others[0]) if others else None,
    }


def _module_sizes() -> dict[str, int]:
    return dict(active_drills().values("module_slug").annotate(n=Count("pk")).values_list("module_slug", "n"))


def mastery_for_users(*, user_ids) -> dict[tuple[int, str], float]:
    """Share of each module's active drills whose latest review passed, for every user and module (2 queries)."""
    sizes = _module_sizes()
    user_ids = list(user_ids)
    passing = (
        ReviewCard.objects.filter(learner_id__in=user_ids, passing=True, drill__retired=False)
        .values("learner_id", "drill__module_slug")
        .annotate(n=Count("pk"))
        .values_list("learner_id", "drill__module_slug", "n")
    )
    result = {(user_id, slug): 0.0 for user_id in user_ids for slug in sizes}
    for user_id, slug, n in passing:
        result[(user_id, slug)] = round(n / sizes[slug], 4)
    return result


def mastery_by_module(*, user) -> dict[str, float]:
    if not getattr(user, "is_authenticated", False):
        return {}
    return {slug: share for (_user_id, slug), share in mastery_for_users(user_ids=[user.pk]).items()}


def attempts_for(*, user) -> QuerySet[Attempt]:
    """Only this user's attempts, newest first, with their drill."""
    return Attempt.objects.filter(learner=user).select_related("drill")


def last_attempt_at(*, user_ids) -> dict[int, datetime]:
    rows = Attempt.objects.filter(learner_id__in=list(user_ids)).values("learner_id").annotate(last=Max("created_at"))
    return {row["learner_id"]: row["last"] for row in rows}


def module_kind_counts() -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for slug, kind, n in (
        active_drills().values("module_slug", "kind").annotate(n=Count("pk")).values_list("module_slug", "kind", "n")
    ):
        counts[slug][kind] = n
    return dict(counts)


def module_drills(*, module_slug: str) -> list[Drill]:
    return list(
        active_drills()
        .filter(module_slug=module_slug)
        .only("pk", "module_slug", "kind", "slug", "title", "section", "topic", "order")
    )


def review_states(*, learner, drill_ids) -> dict[int, ReviewCard]:
    if not getattr(learner, "is_authenticated", False):
        return {}
    return {card.drill_id: card for card in ReviewCard.objects.filter(learner=learner, drill_id__in=list(drill_ids))}


def drill_by_slug(*, module_slug: str, kind: str, slug: str) -> Drill | None:
    """The active drill a URL names (None if none), from the cache until the course content changes."""
    return remember_content(
        f"drill:{module_slug}/{kind}/{slug}",
        lambda: active_drills().filter(module_slug=module_slug, kind=kind, slug=slug).first(),
    )


def drill_by_pk(pk: int) -> Drill | None:
    """The active drill with this id (None if none), from the cache until the course content changes."""
    return remember_content(f"drill:{pk}", lambda: active_drills().filter(pk=pk).first())


def open_card_attempt(*, learner, drill: Drill, attempt_id) -> Attempt | None:
    """The learner's own unrated attempt on this card, or None (never another learner's)."""
    try:
        return Attempt.objects.get(pk=int(attempt_id), learner=learner, drill=drill, rating__isnull=True)
    except (Attempt.DoesNotExist, TypeError, ValueError):
        return None
