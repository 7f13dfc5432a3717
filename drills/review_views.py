"""The review queue's own pages and posts: the statistics page, and undo of the last self-rating."""

import math

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from .models import Kind
from .payload import read_payload
from .review_log import rating_undo, review_stats
from .views import card_rating_context, drill_or_404, exercise_context, plain_400, render_exercise

BAR = {"type": "bar", "marker": {"color": "#3b82f6"}}
LAYOUT = {"paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)", "margin": {"t": 10, "r": 10}}


def _bars(series: dict, y_title: str) -> dict:
    step = max(1, math.ceil(max(series["counts"], default=0) / 5))  # whole reviews: no tick at 0.2
    return {
        "data": [{**BAR, "x": series["days"], "y": series["counts"], "name": y_title}],
        "layout": {
            **LAYOUT,
            "yaxis": {"title": {"text": y_title}, "rangemode": "tozero", "dtick": step},
            "xaxis": {"type": "date"},
        },
    }


@require_GET
@login_required
def review_stats_page(request):
    stats = review_stats(learner=request.user)
    return render(
        request,
        "drills/review_stats.html",
        {
            "stats": stats,
            "history_plot": _bars(stats["history"], "reviews"),
            "forecast_plot": _bars(stats["forecast"], "items due"),
        },
    )


@require_POST
@login_required
@plain_400
def card_undo(request, module_slug, slug):
    """Take back the last rating of this card: the card is as it was, and the answer waits for a rating again."""
    drill = drill_or_404(module_slug, Kind.CARD, slug)
    payload = read_payload(request)
    attempt = rating_undo(learner=request.user, attempt_id=payload.get("attempt"))
    context = {
        **exercise_context(drill, payload.get("round") or ""),
        "revealed": True,
        "card": drill.data,
        "text": attempt.answer.get("text", ""),
        "undone": True,
        "attempt": attempt,
        **card_rating_context(request.user, drill, attempt),
    }
    return render_exercise(request, drill, context)
