"""Selectors the instructor app reads: best scores (regrades win), submissions, queue stats."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from labs import grades, selectors
from labs.models import Submission
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


def _done(learner, lab, score, mode="submit", verdict="wrong_answer", **extra):
    return SubmissionFactory(
        learner=learner,
        lab=lab,
        mode=mode,
        status="done",
        verdict=verdict,
        score=score,
        max_score=1.0,
        finished_at=timezone.now(),
        **extra,
    )


def test_best_scores_take_the_best_submit_only():
    ada, bob = UserFactory(), UserFactory()
    kv, sched = LabFactory(), LabFactory(slug="scheduler")
    _done(ada, kv, 0.4)
    best = _done(ada, kv, 0.9)
    _done(ada, kv, 0.6)
    _done(ada, kv, None, mode="run")
    SubmissionFactory(learner=ada, lab=sched)  # queued: no score yet
    _done(bob, sched, 0.3)
    scores = grades.best_scores(user_ids=[ada.pk, bob.pk])
    assert set(scores) == {(ada.pk, "kv-sizing"), (bob.pk, "scheduler")}
    assert scores[(ada.pk, "kv-sizing")]["score"] == 0.9
    assert scores[(ada.pk, "kv-sizing")]["submission_id"] == best.pk
    assert scores[(ada.pk, "kv-sizing")]["max_score"] == 1.0
    assert grades.best_scores(user_ids=[ada.pk, bob.pk], lab_slugs=["scheduler"]).keys() == {(bob.pk, "scheduler")}


def test_newest_regrade_wins_even_when_lower():
    ada, kv = UserFactory(), LabFactory()
    original = _done(ada, kv, 1.0)
    first = _done(ada, kv, 0.5, regrade_of=original)
    newest = _done(ada, kv, 0.25, regrade_of=original)
    Submission.objects.filter(pk=first.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    [(key, value)] = grades.best_scores(user_ids=[ada.pk]).items()
    assert value["score"] == 0.25 and value["submission_id"] == newest.pk
    assert value["submitted_at"] == original.created_at


def test_a_regrade_waiting_keeps_the_old_score():
    ada, kv = UserFactory(), LabFactory()
    original = _done(ada, kv, 0.7)
    SubmissionFactory(learner=ada, lab=kv, regrade_of=original)
    assert grades.best_scores(user_ids=[ada.pk])[(ada.pk, "kv-sizing")]["score"] == 0.7


def test_submissions_for_filters(django_assert_num_queries):
    ada, bob = UserFactory(), UserFactory()
    kv, sched = LabFactory(), LabFactory(slug="scheduler")
    SubmissionFactory(learner=ada, lab=kv, status="done")
    SubmissionFactory(learner=bob, lab=sched)
    with django_assert_num_queries(1):
        rows = list(selectors.submissions_for(user_ids=[ada.pk]))
        assert [(row.learner.username, row.lab.slug) for row in rows] == [(ada.username, "kv-sizing")]
    assert selectors.submissions_for(lab_slug="scheduler").get().learner == bob
    assert selectors.submissions_for().count() == 2


def test_queue_stats():
    assert selectors.queue_stats() == {"queued": 0, "running": 0, "oldest_queued_age_s": None}
    old = SubmissionFactory()
    Submission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(seconds=42))
    SubmissionFactory(lab=LabFactory(slug="scheduler"))
    SubmissionFactory(status="running")
    SubmissionFactory(status="done")
    stats = selectors.queue_stats()
    assert (stats["queued"], stats["running"]) == (2, 1)
    assert 41 <= stats["oldest_queued_age_s"] < 60


def test_nested_metrics_become_tables_with_a_column_per_system():
    from labs.result_view import metrics_for_display

    scalars, tables = metrics_for_display(
        {
            "device": "cpu",
            "traces": {
                "bursty": {"yours": {"steps": 230, "preemptions": 0}, "reference": {"steps": 204, "preemptions": 1}}
            },
            "timing": {"median_ms": 1.9, "reference_ms": 1.6},
        }
    )
    assert scalars == {"device": "cpu"}
    assert tables[0] == {
        "title": "traces · bursty",
        "headers": ["yours", "reference"],
        "rows": [["steps", 230, 204], ["preemptions", 0, 1]],
    }
    assert tables[1] == {"title": "timing", "headers": ["value"], "rows": [["median_ms", 1.9], ["reference_ms", 1.6]]}


def test_lab_summary_counts_in_the_database(django_assert_num_queries):
    ada, bob, eve = UserFactory(), UserFactory(), UserFactory()
    kv, sched = LabFactory(), LabFactory(slug="scheduler")
    _done(ada, kv, 0.2)
    _done(bob, kv, 1.0, verdict="accepted")
    _done(ada, kv, None, mode="run")
    SubmissionFactory(learner=bob, lab=kv)  # queued: counted under its status, no score
    _done(ada, sched, 0.5)  # another lab
    _done(eve, kv, 0.9)  # another learner
    with django_assert_num_queries(3):
        summary = selectors.lab_summary(user_ids=[ada.pk, bob.pk], lab_slug="kv-sizing")
    assert summary["total"] == 4
    assert summary["verdicts"] == [("wrong_answer", 2), ("queued", 1), ("accepted", 1)]  # a tie: newest first
    assert sorted(summary["scores"]) == [0.2, 1.0] and summary["max_score"] == 1.0


def test_lab_summary_of_nothing_scored_has_a_maximum_of_one():
    ada, kv = UserFactory(), LabFactory()
    SubmissionFactory(learner=ada, lab=kv)
    summary = selectors.lab_summary(user_ids=[ada.pk], lab_slug="kv-sizing")
    assert summary == {"total": 1, "verdicts": [("queued", 1)], "scores": [], "max_score": 1.0}


def test_latest_submits_take_each_learners_newest_finished_original():
    ada, bob, kv = UserFactory(), UserFactory(), LabFactory()
    first = _done(ada, kv, 0.1)
    ada_latest = _done(ada, kv, 0.3)
    _done(ada, kv, None, mode="run")
    _done(ada, kv, 0.9, regrade_of=ada_latest)
    SubmissionFactory(learner=ada, lab=kv, mode="submit")  # still queued
    bob_only = _done(bob, kv, 0.5)
    Submission.objects.filter(pk__in=[first.pk, ada_latest.pk]).update(created_at=timezone.now())  # a tie: the later id
    rows = list(selectors.latest_submits(user_ids=[ada.pk, bob.pk], lab_slug="kv-sizing"))
    assert sorted(row.pk for row in rows) == sorted([ada_latest.pk, bob_only.pk])
