"""`review_due_count` for the navigation badge: one count query, only when a page uses it."""
from django.utils.functional import SimpleLazyObject


def review_due(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from .selectors import due_count

    return {"review_due_count": SimpleLazyObject(lambda: due_count(learner=user))}
