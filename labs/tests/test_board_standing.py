"""Every accepted submit has a board figure, or the board and its page say why in words; boards show each
figure's spread of rounds, and a CPU board says its figures are noisy."""

import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from labs.board_standing import NO_FIGURE, unranked_for
from labs.tests.factories import speed_lab, timed_submission

pytestmark = pytest.mark.django_db

SLOW = "timing stopped: a call took 0.65 s at context 1024; the board times kernels up to 0.5 s a call"


def _edit_metrics(submission, **changes):
    metrics = submission.result["metrics"]
    for key, value in changes.items():
        if value is None:
            metrics.pop(key, None)
        else:
            metrics[key] = value
    submission.save(update_fields=["result"])
    return submission


def _board(client, **query) -> str:
    url = reverse("labs:leaderboard", args=["paged-attention"]) + "?scope=site"
    return client.get(url + "".join(f"&{key}={value}" for key, value in query.items())).content.decode()


def test_a_kernel_too_slow_to_time_is_named_with_the_reason(learner_client, learner):
    lab = speed_lab("paged-attention")
    slow = _edit_metrics(timed_submission(learner, lab, 1.0), median_ms=None, timing_context=None, timing_note=SLOW)
    page = _board(learner_client)
    assert "You have no accepted submission on this board yet" not in page
    assert "You are not on this board." in page
    link = f'<a href="{reverse("labs:submission", args=[slow.pk])}">#{slow.pk}</a>'
    assert (
        f"Your newest accepted submission, {link}, has no figure on the board: a call took 0.65 s at context 1024; "
        "the board times kernels up to 0.5 s a call." in page
    )


def test_a_figure_above_the_peak_is_never_ranked_and_says_so(learner_client, learner):
    lab = speed_lab("paged-attention")
    timed_submission(UserFactory(username="bob"), lab, 2.0)
    flagged = _edit_metrics(
        timed_submission(learner, lab, 0.00001),
        above_peak=True,
        timing_note="not ranked: 419400 GB/s is above what this device can read (14.71 GB/s)",
    )
    page = _board(learner_client)
    assert '<td class="board-name">bob' in page and '<td class="board-name">ada' not in page
    assert f"#{flagged.pk}</a>, has no figure on the board: 419400 GB/s is above what this device can read" in page


def test_a_newer_unranked_submit_is_named_beside_an_older_rank(learner_client, learner):
    lab = speed_lab("paged-attention")
    timed_submission(learner, lab, 2.0)
    newer = _edit_metrics(timed_submission(learner, lab, 1.0), median_ms=None)
    page = _board(learner_client)
    assert "You are <strong>#1</strong> of 1." in page
    assert f"#{newer.pk}</a>, has no figure on the board: {NO_FIGURE}." in page


def test_looking_up_the_newest_unranked_submit_is_one_query(learner, django_assert_num_queries):
    lab = speed_lab("paged-attention")
    for figure in (3.0, 2.0, 1.0):
        timed_submission(learner, lab, figure)
    with django_assert_num_queries(1):
        assert unranked_for(lab=lab, viewer=learner) is None


def test_the_board_shows_each_spread_marks_noisy_entries_and_says_cpu_figures_are_noisy(learner_client, learner):
    lab = speed_lab("paged-attention")
    _edit_metrics(timed_submission(learner, lab, 2.0), timing_spread_pct=12.4)
    _edit_metrics(timed_submission(UserFactory(username="bob"), lab, 1.0), timing_spread_pct=80.0, timing_noisy=True)
    page = _board(learner_client)
    assert '<th scope="col">Spread of rounds</th>' in page
    assert '<td class="board-spread">12%</td>' in page
    assert '<td class="board-spread">80% <span class="muted">(noisy)</span></td>' in page
    assert 'id="board-noisy"' in page and "Figures on a CPU are noisy" in page
    assert "the median of several timed rounds" in page
    timed_submission(learner, lab, 0.5, gpu="NVIDIA H200")
    gpu_page = _board(learner_client, device="NVIDIA%20H200")
    assert "Figures on a CPU are noisy" not in gpu_page and '<td class="board-spread"></td>' in gpu_page


def test_the_submission_page_says_whether_and_why_it_is_on_the_board(learner_client, learner):
    lab = speed_lab("paged-attention")
    ranked = timed_submission(learner, lab, 2.5)
    slow = _edit_metrics(timed_submission(learner, lab, 1.0), median_ms=None, timing_note=SLOW)
    page = learner_client.get(reverse("labs:submission", args=[ranked.pk])).content.decode()
    assert "On the leaderboard with median latency 2.500 ms." in page
    page = learner_client.get(reverse("labs:submission", args=[slow.pk])).content.decode()
    assert (
        "Not on the leaderboard: a call took 0.65 s at context 1024; the board times kernels up to 0.5 s a call."
        in page
    )
    failed = timed_submission(learner, lab, 1.0, verdict="wrong_answer")
    page = learner_client.get(reverse("labs:submission", args=[failed.pk])).content.decode()
    assert "Only accepted submits are ranked on the leaderboard." in page


def test_the_ring_board_shows_the_spread_of_its_rounds_and_marks_a_noisy_entry(learner_client, learner):
    lab = speed_lab("ring-allreduce")
    steady = timed_submission(learner, lab, 2.0)
    steady.result["metrics"]["board"].update(spread_pct=21.5, rounds=5, retimed=0)
    steady.save(update_fields=["result"])
    noisy = timed_submission(UserFactory(username="bob"), lab, 1.0)
    noisy.result["metrics"]["board"].update(spread_pct=75.0, rounds=5, retimed=2, noisy=True)
    noisy.save(update_fields=["result"])
    page = learner_client.get(reverse("labs:leaderboard", args=["ring-allreduce"]) + "?scope=site").content.decode()
    assert '<td class="board-spread">22%</td>' in page
    assert '<td class="board-spread">75% <span class="muted">(noisy)</span></td>' in page
    assert "the median of 5 rounds on fresh values" in page
