"""The gradebook: the late rule per submission, regrades, overrides and the weighted total."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cohorts.models import CohortLab, ScoreOverride
from cohorts.terms import late_penalty_pct
from cohorts.tests.factories import CohortLabFactory, ScoreOverrideFactory
from instructor.gradebook import cohort_gradebook
from instructor.tests import factories
from labs import grades as lab_grades

DUE = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def terms(**fields):
    return CohortLab(lab_slug="lab-1", **{"due_at": DUE, "percent_per_day": 10, **fields})


def test_penalty_counts_started_days_after_the_due_date():
    assert late_penalty_pct(DUE, terms()) == 0
    assert late_penalty_pct(DUE + timedelta(seconds=1), terms()) == 10
    assert late_penalty_pct(DUE + timedelta(days=1), terms()) == 10
    assert late_penalty_pct(DUE + timedelta(days=1, minutes=1), terms()) == 20
    assert late_penalty_pct(DUE + timedelta(days=30), terms()) == 100


def test_after_the_late_due_date_a_submission_scores_zero():
    late = terms(late_due_at=DUE + timedelta(days=2), percent_per_day=5)
    assert late_penalty_pct(DUE + timedelta(days=2), late) == 10
    assert late_penalty_pct(DUE + timedelta(days=2, seconds=1), late) == 100


def test_no_terms_or_no_due_date_means_no_penalty():
    assert late_penalty_pct(DUE + timedelta(days=9), None) == 0
    assert late_penalty_pct(DUE + timedelta(days=9), terms(due_at=None)) == 0


@given(
    st.integers(min_value=-10 * 86400, max_value=60 * 86400),
    st.integers(min_value=0, max_value=86400),
    st.floats(min_value=0, max_value=100),
)
def test_penalty_is_bounded_and_never_falls_with_time(offset_s, extra_s, percent):
    rule = terms(percent_per_day=percent)
    first = late_penalty_pct(DUE + timedelta(seconds=offset_s), rule)
    later = late_penalty_pct(DUE + timedelta(seconds=offset_s + extra_s), rule)
    assert 0 <= first <= later <= 100


@pytest.mark.django_db
def test_best_final_is_judged_submission_by_submission(cohort, learner):
    CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=DUE, percent_per_day=50)
    factories.submission(learner, "lab-1", 0.6, at=DUE - timedelta(hours=1))  # on time: 0.6
    factories.submission(learner, "lab-1", 1.0, at=DUE + timedelta(hours=3))  # a day late: 1.0 - 50% = 0.5
    grade = cohort_gradebook(cohort).rows[0].labs["lab-1"]
    assert (grade.raw, grade.final, grade.penalty_pct) == (1.0, 0.6, 0)
    factories.submission(learner, "lab-1", 0.9, at=DUE - timedelta(minutes=5))
    grade = cohort_gradebook(cohort).rows[0].labs["lab-1"]
    assert (grade.raw, grade.final) == (1.0, 0.9)


@pytest.mark.django_db
def test_late_due_date_zeroes_and_penalty_shows_for_the_counted_submission(cohort, learner):
    CohortLabFactory(
        cohort=cohort, lab_slug="lab-1", due_at=DUE, late_due_at=DUE + timedelta(days=2), percent_per_day=25
    )
    factories.submission(learner, "lab-1", 0.8, at=DUE + timedelta(days=1, hours=1))  # 2 days: 50% off: 0.4
    factories.submission(learner, "lab-1", 1.0, at=DUE + timedelta(days=3))  # after the late due date: 0
    grade = cohort_gradebook(cohort).rows[0].labs["lab-1"]
    assert (grade.raw, grade.final, grade.penalty_pct) == (1.0, 0.4, 50)


@pytest.mark.django_db
def test_regrade_replaces_the_score_and_keeps_the_submission_time(cohort, learner):
    CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=DUE, percent_per_day=10)
    original = factories.submission(learner, "lab-1", 0.9, at=DUE - timedelta(days=1))
    factories.submission(learner, "lab-1", 0.3, at=DUE + timedelta(days=5), regrade_of=original)
    grade = cohort_gradebook(cohort).rows[0].labs["lab-1"]
    assert (grade.raw, grade.final, grade.penalty_pct) == (0.3, 0.3, 0)
    factories.submission(learner, "lab-1", None, at=DUE + timedelta(days=6), regrade_of=original, status="queued")
    assert cohort_gradebook(cohort).rows[0].labs["lab-1"].final == 0.3  # a waiting regrade changes nothing yet


@pytest.mark.django_db
def test_raw_best_agrees_with_the_labs_selector(cohort, learner):
    first = factories.submission(learner, "lab-1", 0.4, at=DUE)
    factories.submission(learner, "lab-1", 0.7, at=DUE + timedelta(hours=1))
    factories.submission(learner, "lab-1", 0.95, at=DUE + timedelta(hours=2), regrade_of=first)
    factories.submission(learner, "lab-2", 2.0, max_score=4.0, at=DUE)
    factories.submission(learner, "lab-2", None, mode="run", at=DUE)
    book = cohort_gradebook(cohort).rows[0]
    best = lab_grades.best_scores(user_ids=[learner.pk])
    for slug in ("lab-1", "lab-2"):
        assert book.labs[slug].raw == best[(learner.pk, slug)]["score"]
        assert book.labs[slug].max_score == best[(learner.pk, slug)]["max_score"]


@pytest.mark.django_db
def test_overrides_replace_scores_until_undone_and_enter_the_total(cohort, learner, instructor):
    cohort.drill_weight = 2
    cohort.save()
    CohortLabFactory(cohort=cohort, lab_slug="lab-2", weight=0)
    factories.submission(learner, "lab-1", 0.5)
    mastered = factories.drills("m1", n=4)
    factories.master(learner, mastered[:2])  # m1: 50%, m2: no drills
    row = cohort_gradebook(cohort).rows[0]
    # labs: lab-1 weight 1 at 0.5, lab-2 weight 0; drills weight 2 at mean(0.5, 0) = 0.25
    assert row.total_pct == pytest.approx(100 * (1 * 0.5 + 2 * 0.25) / 3, abs=0.01)
    override = ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="lab",
        target_slug="lab-1",
        score=1.0,
        max_score=1.0,
        reason="viva",
        created_by=instructor,
    )
    ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="module",
        target_slug="m2",
        score=100,
        max_score=100,
        reason="project",
        created_by=instructor,
    )
    row = cohort_gradebook(cohort).rows[0]
    assert row.labs["lab-1"].final == 1.0 and row.labs["lab-1"].raw == 0.5
    assert row.modules["m2"].final_mastery == 1.0 and len(row.overrides) == 2
    assert row.total_pct == pytest.approx(100 * (1.0 + 2 * 0.75) / 3, abs=0.01)
    ScoreOverride.objects.filter(pk=override.pk).update(undone_at=DUE)
    assert cohort_gradebook(cohort).rows[0].labs["lab-1"].final == 0.5
