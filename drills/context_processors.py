"""`review_due_count` for the navigation badge: read (from the cache, mostly) only when a page uses it."""

from django.utils.functional import SimpleLazyObject


def review_due(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from .selectors import due_badge

    return {"review_due_count": SimpleLazyObject(lambda: due_badge(learner=user))}
