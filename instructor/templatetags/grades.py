"""Number formats shared by the dashboard pages and the CSV export, so both print the same figures."""

from django import template

register = template.Library()


def number(value) -> str:
    """A score with at most 2 decimals, "" when there is none."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "" if value in (None, "") else str(value)
    return f"{value:.2f}".rstrip("0").rstrip(".")


def percent(fraction) -> str:
    """A share 0..1 as a percentage with at most 1 decimal."""
    return number(round(100 * fraction, 1)) if isinstance(fraction, (int, float)) else ""


register.filter("number", number)
register.filter("percent", percent)


@register.filter
def get(mapping, key):
    return mapping.get(key) if mapping else None
