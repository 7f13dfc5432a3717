"""Template helpers: module mastery read once per request, whatever number of modules a page shows."""

from django import template

from ..review import interval_words
from ..selectors import mastery_by_module

register = template.Library()


@register.simple_tag(takes_context=True)
def module_mastery(context, module_slug: str):
    """The signed-in learner's mastery (0..1) of one module; None for visitors and drill-less modules."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if request is None or user is None or not user.is_authenticated:
        return None
    cache = getattr(request, "_drills_mastery", None)
    if cache is None:
        cache = request._drills_mastery = mastery_by_module(user=user)
    return cache.get(module_slug)  # None: the module has no drills


@register.filter
def percent(value) -> str:
    return f"{round((value or 0) * 100)}%"


@register.filter
def due_in(when, now) -> str:
    """ "in 10 min" / "now" for a due time, measured from `now` (so a page says one consistent time)."""
    if when is None:
        return ""
    return "now" if when <= now else f"in {interval_words(when - now)}"
