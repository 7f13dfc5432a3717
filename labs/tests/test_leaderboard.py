"""Leaderboard selectors on Submission rows as the worker leaves them: which rows count, who ranks where."""

import pytest

from accounts.tests.factories import UserFactory
from cohorts.tests.factories import CohortFactory
from labs.leaderboard import best_per_learner, board_for
from labs.tests.factories import speed_lab, timed_submission

pytestmark = pytest.mark.django_db


def names(board) -> list[tuple]:
    return [(entry.rank, entry.username, round(entry.figure, 3)) for entry in board.entries]


def test_only_accepted_submits_timed_on_the_fixed_workload_count():
    lab = speed_lab("paged-attention")
    ada, bob, cy, dee, eve = (UserFactory(username=name) for name in ("ada", "bob", "cy", "dee", "eve"))
    timed_submission(ada, lab, 3.0)
    timed_submission(bob, lab, 0.1, verdict="wrong_answer")  # fast but wrong
    timed_submission(cy, lab, 0.2, mode="run")  # a run is not a submission
    timed_submission(dee, lab, 0.3, status="running", verdict="")
    partial = timed_submission(eve, lab, 0.4)  # timing stopped at a shorter context: not the same workload
    partial.result["metrics"]["timing_context"] = 256
    partial.save(update_fields=["result"])
    assert names(board_for(lab=lab, viewer=ada)) == [(1, "ada", 3.0)]


def test_each_learner_appears_once_with_their_best():
    lab = speed_lab("paged-attention")
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    for figure in (5.0, 1.5, 4.0):
        timed_submission(ada, lab, figure)
    timed_submission(bob, lab, 2.0)
    assert names(board_for(lab=lab, viewer=bob)) == [(1, "ada", 1.5), (2, "bob", 2.0)]


def test_device_kinds_are_ranked_apart():
    lab = speed_lab("paged-attention")
    ada, bob, cy = (UserFactory(username=name) for name in ("ada", "bob", "cy"))
    timed_submission(ada, lab, 9.0)
    timed_submission(ada, lab, 0.05, gpu="NVIDIA H200")
    timed_submission(bob, lab, 0.04, gpu="NVIDIA H200")
    timed_submission(cy, lab, 0.5, gpu="NVIDIA A100-SXM4-80GB")
    boards = best_per_learner(lab=lab)
    assert sorted(boards) == ["NVIDIA A100-SXM4-80GB", "NVIDIA H200", "cpu"]
    assert names(board_for(lab=lab, viewer=ada, device="cpu")) == [(1, "ada", 9.0)]
    h200 = board_for(lab=lab, viewer=ada, device="NVIDIA H200")
    assert names(h200) == [(1, "bob", 0.04), (2, "ada", 0.05)]
    assert h200.devices == ["cpu", "NVIDIA A100-SXM4-80GB", "NVIDIA H200"]  # the CPU first, then by name
    assert board_for(lab=lab, viewer=cy).device == "NVIDIA A100-SXM4-80GB"  # unasked: where the viewer is


def test_cohort_scope_holds_only_its_learners_and_site_scope_everyone():
    lab = speed_lab("ring-allreduce")
    ada, bob, cy = (UserFactory(username=name) for name in ("ada", "bob", "cy"))
    cohort = CohortFactory(name="Spring", learners=[ada, cy])
    for learner, busbw in ((ada, 1.0), (bob, 3.0), (cy, 2.0)):
        timed_submission(learner, lab, busbw)
    assert names(board_for(lab=lab, viewer=ada, cohort=cohort)) == [(1, "cy", 2.0), (2, "ada", 1.0)]
    assert names(board_for(lab=lab, viewer=ada)) == [(1, "bob", 3.0), (2, "cy", 2.0), (3, "ada", 1.0)]


@pytest.mark.parametrize(
    "slug, expected",
    [
        ("paged-attention", ["fast", "middle", "slow"]),  # milliseconds: lower is better
        ("scheduler", ["slow", "middle", "fast"]),  # tokens per step: higher is better
        ("ring-allreduce", ["slow", "middle", "fast"]),  # GB/s: higher is better
    ],
)
def test_each_lab_ranks_its_figure_the_right_way(slug, expected):
    lab = speed_lab(slug)
    for name, figure in (("fast", 1.0), ("middle", 2.0), ("slow", 3.0)):
        timed_submission(UserFactory(username=name), lab, figure)
    board = board_for(lab=lab, viewer=UserFactory(username="watcher"))
    assert [entry.username for entry in board.entries] == expected


def test_scheduler_ranks_the_fixed_hidden_board_trace_not_the_scored_traces():
    lab = speed_lab("scheduler")
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    timed_submission(ada, lab, 4.0)
    before_the_board = timed_submission(bob, lab, 9.0)
    del before_the_board.result["metrics"]["board"]  # graded before the board trace existed: not comparable
    before_the_board.save()
    assert names(board_for(lab=lab, viewer=ada)) == [(1, "ada", 4.0)]  # not 3.5 (public) nor 99 (random hidden)


def test_scheduler_ranks_only_figures_on_the_sites_current_board_workload():
    """A site that changes its board workload (SCHEDULER_BOARD_WORKLOAD, LEADERBOARD_SEED) starts afresh: figures
    on the old workload, or from before workers named theirs, are not compared with the new ones."""
    lab = speed_lab("scheduler")
    ada, bob, cy = (UserFactory(username=name) for name in ("ada", "bob", "cy"))
    timed_submission(ada, lab, 9.0)  # before fingerprints
    assert names(board_for(lab=lab, viewer=ada)) == [(1, "ada", 9.0)]
    timed_submission(bob, lab, 8.0, workload="old")
    timed_submission(cy, lab, 5.0, workload="new")
    timed_submission(ada, lab, 4.0, workload="new")
    assert names(board_for(lab=lab, viewer=ada)) == [(1, "cy", 5.0), (2, "ada", 4.0)]


def test_own_rank_is_marked_and_equal_figures_share_a_rank():
    lab = speed_lab("paged-attention")
    ada, bob, cy, dee = (UserFactory(username=name) for name in ("ada", "bob", "cy", "dee"))
    timed_submission(bob, lab, 1.0)
    timed_submission(cy, lab, 2.0)
    timed_submission(ada, lab, 2.0)
    timed_submission(dee, lab, 3.0)
    board = board_for(lab=lab, viewer=ada)
    assert names(board) == [(1, "bob", 1.0), (2, "cy", 2.0), (2, "ada", 2.0), (4, "dee", 3.0)]  # cy got there first
    assert board.own.username == "ada" and board.own.rank == 2
    assert [entry.is_own for entry in board.entries] == [False, False, True, False]
    assert board_for(lab=lab, viewer=UserFactory(username="new")).own is None


def test_a_board_costs_one_query_however_many_submissions(django_assert_num_queries):
    lab = speed_lab("ring-allreduce")
    learners = [UserFactory() for _ in range(6)]
    for index, learner in enumerate(learners):
        for figure in (index, index + 0.5):
            timed_submission(learner, lab, float(figure + 1), gpu="NVIDIA H200" if index % 2 else None)
    cohort = CohortFactory(name="Spring", learners=learners[:3])
    with django_assert_num_queries(1):
        site = board_for(lab=lab, viewer=learners[0], device="NVIDIA H200")
    with django_assert_num_queries(1):
        in_cohort = board_for(lab=lab, viewer=learners[0], cohort=cohort)
    assert [entry.figure for entry in site.entries] == [6.5, 4.5, 2.5]
    assert [(entry.username, entry.figure) for entry in in_cohort.entries] == [
        (learners[2].username, 3.5),
        (learners[0].username, 1.5),
    ]


def test_results_without_the_figure_are_left_out():
    lab = speed_lab("ring-allreduce")
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    broken = timed_submission(ada, lab, 2.0)  # accepted, but the bandwidth table could not be measured
    broken.result = {"metrics": {"bandwidth_error": "the library baseline did not run"}, "tests": []}
    broken.save(update_fields=["result"])
    timed_submission(bob, lab, 1.0)
    board = board_for(lab=lab, viewer=ada)
    assert names(board) == [(1, "bob", 1.0)] and board.own is None
