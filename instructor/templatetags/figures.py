"""`{{ figure|figure_json }}`: a plotly figure as JSON for a data-figure attribute (autoescaped, so safe there)."""
import json

from django import template

register = template.Library()


@register.filter
def figure_json(figure) -> str:
    return json.dumps(figure if isinstance(figure, dict) else {}, default=str)
