"""The dashboard's plots read right: a perfect score is inside the histogram's axis, and the best-score
line of a lab does not fall when a later run fails."""

from datetime import timedelta

import pytest
from django.utils import timezone

from instructor import charts
from instructor.tests import factories

pytestmark = pytest.mark.django_db


def test_a_perfect_score_falls_in_the_last_bin_inside_the_axis():
    figure = charts.score_histogram([1.0, 1.0, 0.95, 0.5, 0.0], 1.0)
    bars = figure["data"][0]
    assert bars["y"] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 3]  # the three scores from 0.9 to 1.0 share the last bar
    assert sum(bars["y"]) == 5  # nothing dropped
    last_right_edge = bars["x"][-1] + bars["width"][-1] / 2
    assert figure["layout"]["xaxis"]["range"] == [0, 1.0] and last_right_edge == pytest.approx(1.0)
    assert bars["customdata"][-1] == "0.9–1"


def test_bins_follow_the_labs_maximum():
    assert charts.score_bins([0, 2.5, 5, 5], 5.0, bins=5) == [1, 0, 1, 0, 2]


def test_best_score_line_stands_after_a_later_failed_run(learner):
    factories.course(n_modules=1, n_sections=1)
    start = timezone.now() - timedelta(hours=3)
    runs = [
        factories.submission(learner, "lab-1", score, at=start + timedelta(hours=i))
        for i, score in enumerate([0.4, 1.0, 0.0])
    ]
    figure = charts.learner_timeline(runs, [])
    markers, best = figure["data"][0], figure["data"][1]
    assert markers["name"] == "lab-1: each run" and markers["y"] == [40.0, 100.0, 0.0]  # the failure is shown
    assert best["name"] == "lab-1: best so far" and best["y"] == [40.0, 100.0, 100.0]  # and the best stands
    assert best["line"]["shape"] == "hv"
