"""Reads: what is due, mastery per module, and a learner's own attempts. Other apps call these."""
from collections import defaultdict
from datetime import datetime

from django.core.cache import cache
from django.db.models import Count, Max, Min, Q, QuerySet
from django.utils import timezone

from config.readcache import TIMEOUT_S, content_key, enabled, forget, remember

from .models import Attempt, Drill, ReviewCard


def active_drills() -> QuerySet[Drill]:
    return Drill.objects.filter(retired=False)


def drills_due_for(*, learner, now: datetime | None = None) -> QuerySet[Drill]:
    """Drills whose review card is due, soonest first; each carries `due` from its card."""
    now = now or timezone.now()
    return (active_drills().filter(review_cards__learner=learner, review_cards__due__lte=now)
            .annotate(due=Max("review_cards__due")).order_by("due", "pk"))


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
        due_now=Count("pk", filter=Q(due__lte=now)), next_due_at=Min("due", filter=Q(due__gt=now)))
    cache.set(key, (figures["due_now"], figures["next_due_at"]), TIMEOUT_S)
    return figures["due_now"]


def _day_figures(*, learner, now: datetime, **extra) -> dict:
    start_of_day = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return ReviewCard.objects.filter(learner=learner, drill__retired=False).aggregate(
        reviewed_today=Count("pk", filter=Q(reviewed_at__gte=start_of_day)),
        next_due_at=Min("due", filter=Q(due__gt=now)), **extra)


def review_day(*, learner, now: datetime | None = None) -> dict:
    """One query: how many items the learner reviewed today and when the next not-yet-due one comes due."""
    now = now or timezone.now()
    return {**_day_figures(learner=learner, now=now), "now": now}


def review_session(*, learner, current: Drill | None = None, now: datetime | None = None) -> dict:
    """Where the learner's review session stands after an answer (two queries): the next due item (not the one
    just answered), how many others are due, the day's figures, and when the answered item comes back."""
    now = now or timezone.now()
    current_id = current.pk if current is not None else None
    answered = Q(drill_id=current_id)
    figures = _day_figures(learner=learner, now=now, due_count=Count("pk", filter=Q(due__lte=now) & ~answered),
                           this_due_at=Max("due", filter=answered))
    following = drills_due_for(learner=learner, now=now).exclude(pk=current_id).first()
    return {**figures, "now": now, "next": following}


def _module_sizes() -> dict[str, int]:
    return dict(active_drills().values("module_slug").annotate(n=Count("pk")).values_list("module_slug", "n"))


def mastery_for_users(*, user_ids) -> dict[tuple[int, str], float]:
    """Share of each module's active drills whose latest review passed, for every user and module (2 queries)."""
    sizes = _module_sizes()
    user_ids = list(user_ids)
    passing = (ReviewCard.objects.filter(learner_id__in=user_ids, passing=True, drill__retired=False)
               .values("learner_id", "drill__module_slug").annotate(n=Count("pk"))
               .values_list("learner_id", "drill__module_slug", "n"))
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
    for slug, kind, n in active_drills().values("module_slug", "kind").annotate(n=Count("pk")).values_list(
            "module_slug", "kind", "n"):
        counts[slug][kind] = n
    return dict(counts)


def module_drills(*, module_slug: str) -> list[Drill]:
    return list(active_drills().filter(module_slug=module_slug).only(
        "pk", "module_slug", "kind", "slug", "title", "section", "topic", "order"))


def review_states(*, learner, drill_ids) -> dict[int, ReviewCard]:
    if not getattr(learner, "is_authenticated", False):
        return {}
    return {card.drill_id: card for card in ReviewCard.objects.filter(learner=learner, drill_id__in=list(drill_ids))}


def drill_by_slug(*, module_slug: str, kind: str, slug: str) -> Drill | None:
    """The active drill a URL names (None if none), from the cache until the course content changes."""
    return remember(content_key(f"drill:{module_slug}/{kind}/{slug}"),
                    lambda: active_drills().filter(module_slug=module_slug, kind=kind, slug=slug).first())


def open_card_attempt(*, learner, drill: Drill, attempt_id) -> Attempt | None:
    """The learner's own unrated attempt on this card, or None (never another learner's)."""
    try:
        return Attempt.objects.get(pk=int(attempt_id), learner=learner, drill=drill, rating__isnull=True)
    except (Attempt.DoesNotExist, TypeError, ValueError):
        return None
