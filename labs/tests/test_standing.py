"""Learners see their due date, late penalty and the score that counts: the gradebook's own figure."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cohorts.tests.factories import CohortFactory, CohortLabFactory, GradeReleaseFactory, ScoreOverrideFactory
from instructor.gradebook import cohort_gradebook
from labs import grades
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db
DUE = timezone.now().replace(microsecond=0) - timedelta(days=3)


@pytest.fixture
def lab():
    return LabFactory()


@pytest.fixture
def cohort(learner, instructor):
    return CohortFactory(name="Autumn", instructors=[instructor], learners=[learner])


def release(cohort, lab):
    """The instructor released the lab's grades: from now on learners see the score that counts."""
    GradeReleaseFactory(cohort=cohort, lab_slug=lab.slug, released_by=cohort.instructors.get())


def submit(learner, lab, score, at):
    return SubmissionFactory(
        learner=learner,
        lab=lab,
        mode="submit",
        source="x = 1\n",
        status="done",
        verdict="accepted" if score == 1 else "wrong_answer",
        score=score,
        max_score=1.0,
        at=at,
    )


def test_a_late_perfect_score_shows_the_penalised_figure_the_gradebook_has(learner_client, learner, lab, cohort):
    CohortLabFactory(cohort=cohort, lab_slug=lab.slug, due_at=DUE, percent_per_day=10)
    submit(learner, lab, 1.0, DUE + timedelta(hours=5))  # one started day late: 10% off
    release(cohort, lab)
    counted = cohort_gradebook(cohort).rows[0].labs[lab.slug].final
    assert counted == pytest.approx(0.9)
    index = learner_client.get(reverse("labs:index")).content.decode()
    assert DUE.strftime("%Y-%m-%d %H:%M") in index and "−10%/day" in index
    assert "1.00 / 1.00" in index and "0.90 / 1.00" in index and "−10% late" in index
    page = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    assert f"Due <strong>{DUE.strftime('%Y-%m-%d %H:%M')} (UTC)</strong>" in page
    assert "10% off per started day late" in page
    assert '<strong id="counted-score">0.90 / 1.00</strong>' in page and "less 10% for lateness" in page


def test_an_on_time_lower_score_can_be_the_one_that_counts(learner, lab, cohort):
    CohortLabFactory(
        cohort=cohort, lab_slug=lab.slug, due_at=DUE, late_due_at=DUE + timedelta(days=1), percent_per_day=50
    )
    submit(learner, lab, 0.6, DUE - timedelta(hours=1))
    submit(learner, lab, 1.0, DUE + timedelta(days=2))  # after the late due date: 0
    release(cohort, lab)
    standing = grades.lab_standing(learner=learner)[lab.slug]
    grade = cohort_gradebook(cohort).rows[0].labs[lab.slug]
    assert (standing["final"], standing["raw"], standing["penalty_pct"]) == (grade.final, grade.raw, grade.penalty_pct)
    assert (standing["final"], standing["raw"]) == (0.6, 1.0)


def test_an_override_is_the_score_that_counts(learner_client, learner, instructor, lab, cohort):
    submit(learner, lab, 0.5, DUE)
    ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="lab",
        target_slug=lab.slug,
        score=0.8,
        max_score=1.0,
        reason="grader bug on trace 3",
        created_by=instructor,
    )
    assert cohort_gradebook(cohort).rows[0].labs[lab.slug].final == 0.8
    release(cohort, lab)
    page = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    assert '<strong id="counted-score">0.80 / 1.00</strong>' in page and "grader bug on trace 3" in page


def test_no_cohort_means_no_due_date_and_the_best_score_counts(learner_client, learner, lab):
    submit(learner, lab, 0.75, DUE)
    index = learner_client.get(reverse("labs:index")).content.decode()
    assert index.count("0.75 / 1.00") == 2 and "late" not in index.split("<table")[1]
    page = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    assert "No due date." in page and '<strong id="counted-score">0.75 / 1.00</strong>' in page


def test_the_labs_list_costs_the_same_queries_for_more_labs(
    learner_client, learner, lab, cohort, django_assert_max_num_queries
):
    CohortLabFactory(cohort=cohort, lab_slug=lab.slug, due_at=DUE, percent_per_day=10)
    submit(learner, lab, 1.0, DUE)
    with django_assert_max_num_queries(14) as few:
        learner_client.get(reverse("labs:index"))
    for n in range(4):
        more = LabFactory(slug=f"extra-{n}", order=10 + n)
        CohortLabFactory(cohort=cohort, lab_slug=more.slug, due_at=DUE)
        submit(learner, more, 0.5, DUE + timedelta(days=1))
    with django_assert_max_num_queries(len(few.captured_queries)):
        text = learner_client.get(reverse("labs:index")).content.decode()
    assert "extra-3" in text
