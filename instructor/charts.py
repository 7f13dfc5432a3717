"""Plotly figures (plain dicts) for the dashboard; static/js/instructor/charts.js draws them."""
from collections import Counter


def learner_timeline(submissions, attempts) -> dict:
    """Submission scores and drill answers over time, one trace per lab plus one for drills."""
    by_lab: dict[str, dict] = {}
    for sub in sorted(submissions, key=lambda s: s.created_at):
        if sub.score is None:
            continue
        trace = by_lab.setdefault(sub.lab.slug, {"type": "scatter", "mode": "lines+markers", "name": sub.lab.slug,
                                                 "x": [], "y": []})
        trace["x"].append(sub.created_at.isoformat())
        trace["y"].append(round(100 * sub.score / sub.max_score, 1) if sub.max_score else 0)
    drills = {"type": "scatter", "mode": "markers", "name": "drill answers (correct = 100)", "x": [], "y": [],
              "marker": {"symbol": "x"}}
    for attempt in sorted(attempts, key=lambda a: a.created_at):
        if attempt.is_correct is not None:
            drills["x"].append(attempt.created_at.isoformat())
            drills["y"].append(100 if attempt.is_correct else 0)
    return {"data": [*by_lab.values(), drills],
            "layout": {"title": {"text": "Activity over time"}, "yaxis": {"title": {"text": "score %"},
                                                                       "range": [-5, 105]},
                       "height": 320, "margin": {"t": 40, "r": 10}}}


def score_histogram(scores: list[float], max_score: float) -> dict:
    return {"data": [{"type": "histogram", "x": scores, "xbins": {"start": 0, "end": max_score * 1.0001,
                                                                   "size": max_score / 10 or 0.1},
                      "name": "scores"}],
            "layout": {"title": {"text": "Scores of the graded submissions"},
                       "xaxis": {"title": {"text": "score"}, "range": [0, max_score]},
                       "yaxis": {"title": {"text": "submissions"}}, "height": 300, "bargap": 0.05,
                       "margin": {"t": 40, "r": 10}}}


def verdict_counts(submissions) -> list[tuple[str, int]]:
    counts = Counter(sub.verdict or sub.status for sub in submissions)
    return counts.most_common()
