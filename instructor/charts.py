"""Plotly figures (plain dicts) for the dashboard; templates/_plot.html embeds them and static/js/plots.js draws them."""

CLEAR = {"paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)"}  # the page shows through, light or dark


def learner_timeline(submissions, attempts) -> dict:
    """Submission scores and drill answers over time. Per lab: every graded run as a marker, and the best
    score so far as a step line that never falls, since a later failed run does not take the best away."""
    by_lab: dict[str, list[tuple[str, float]]] = {}
    for sub in sorted(submissions, key=lambda s: s.created_at):
        if sub.score is None:
            continue
        percent = round(100 * sub.score / sub.max_score, 1) if sub.max_score else 0
        by_lab.setdefault(sub.lab.slug, []).append((sub.created_at.isoformat(), percent))
    traces = []
    for index, (slug, runs) in enumerate(by_lab.items()):
        colour = PALETTE[index % len(PALETTE)]
        best, best_so_far = 0.0, []
        for _when, percent in runs:
            best = max(best, percent)
            best_so_far.append(best)
        times = [when for when, _percent in runs]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{slug}: each run",
                "legendgroup": slug,
                "x": times,
                "y": [percent for _when, percent in runs],
                "marker": {"color": colour, "size": 8},
            }
        )
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{slug}: best so far",
                "legendgroup": slug,
                "x": times,
                "y": best_so_far,
                "line": {"shape": "hv", "color": colour, "width": 2},
            }
        )
    drills = {
        "type": "scatter",
        "mode": "markers",
        "name": "drill answers (correct = 100)",
        "x": [],
        "y": [],
        "marker": {"symbol": "x", "color": "#888"},
    }
    for attempt in sorted(attempts, key=lambda a: a.created_at):
        if attempt.is_correct is not None:
            drills["x"].append(attempt.created_at.isoformat())
            drills["y"].append(100 if attempt.is_correct else 0)
    return {
        "data": [*traces, drills],
        "layout": {
            "title": {"text": "Activity over time"},
            "yaxis": {"title": {"text": "score %"}, "range": [-5, 105]},
            "legend": {"orientation": "h", "y": -0.2},
            "height": 340,
            "margin": {"t": 40, "r": 10},
            **CLEAR,
        },
    }


PALETTE = ["#2f5bd3", "#17794a", "#9a6200", "#b3261e", "#6b3fa0", "#00838f"]


def score_bins(scores: list[float], max_score: float, bins: int = 10) -> list[int]:
    """Counts in `bins` equal bins over [0, max_score]; the last bin is closed, so a perfect score is in it."""
    counts = [0] * bins
    for score in scores:
        fraction = score / max_score if max_score else 0.0
        counts[min(bins - 1, max(0, int(fraction * bins)))] += 1
    return counts


def score_histogram(scores: list[float], max_score: float) -> dict:
    """Bars drawn from our own bins: Plotly's histogram puts max_score in a bin past the axis's end."""
    bins = 10
    width = (max_score or 1.0) / bins
    counts = score_bins(scores, max_score or 1.0, bins)
    labels = [f"{i * width:g}–{(i + 1) * width:g}" for i in range(bins)]
    return {
        "data": [
            {
                "type": "bar",
                "x": [round((i + 0.5) * width, 6) for i in range(bins)],
                "y": counts,
                "width": [width] * bins,
                "name": "scores",
                "customdata": labels,
                "hovertemplate": "score %{customdata}: %{y} submissions<extra></extra>",
            }
        ],
        "layout": {
            "title": {"text": "Scores of the graded submissions"},
            "xaxis": {
                "title": {"text": f"score (out of {max_score:g}; the last bar includes {max_score:g})"},
                "range": [0, max_score or 1.0],
            },
            "yaxis": {"title": {"text": "submissions"}, "rangemode": "tozero"},
            "height": 300,
            "bargap": 0.05,
            "margin": {"t": 40, "r": 10},
            **CLEAR,
        },
    }
