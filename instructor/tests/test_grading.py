"""Extensions move one learner's lateness (gradebook, export, the learner's own pages); released grades
show learners the score that counts, unreleased ones only their verdicts and the grader's scores."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse

from cohorts.models import CohortLab, Extension, GradeRelease
from cohorts.terms import own_terms
from cohorts.tests.factories import CohortLabFactory, MembershipFactory, ScoreOverrideFactory
from instructor.gradebook import cohort_gradebook
from instructor.tests import factories

pytestmark = pytest.mark.django_db
DUE = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def terms(cohort):
    return CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=DUE, percent_per_day=10)


def signed_in(user, zone: str | None = None) -> Client:
    client = Client()
    client.force_login(user)
    if zone:
        client.cookies["tz"] = zone
    return client


def give(client, cohort, learner, **fields):
    data = {"extension-lab_slug": "lab-1", "extension-reason": "Hospital stay, note seen", **fields}
    return client.post(reverse("instructor:extension_set", args=[cohort.pk, learner.pk]), {**data})


def export(client, cohort) -> dict:
    response = client.get(reverse("instructor:export", args=[cohort.pk]))
    return next(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_an_extension_takes_the_late_penalty_away_and_removing_it_brings_it_back(cohort, terms, instructor, learner):
    factories.submission(learner, "lab-1", 1.0, at=DUE + timedelta(days=1, hours=6))  # 2 started days late
    teacher = signed_in(instructor)
    assert export(teacher, cohort)["lab-1 final"] == "0.8"

    response = give(teacher, cohort, learner, **{"extension-due_at": "2026-11-04T12:00"})
    assert response.status_code == 302
    assert "ada now has until 2026-11-04 12:00 for lab-1." in teacher.get(response["Location"]).content.decode()
    grade = cohort_gradebook(cohort).rows[0].labs["lab-1"]
    assert (grade.final, grade.penalty_pct, grade.extension.reason) == (1.0, 0.0, "Hospital stay, note seen")
    row = export(teacher, cohort)
    assert row["lab-1 final"] == "1" and row["lab-1 late penalty %"] == "0"
    assert row["extensions"] == "lab-1 due 2026-11-04 12:00 UTC: Hospital stay, note seen"

    extension = Extension.objects.get()
    response = teacher.post(reverse("instructor:extension_remove", args=[cohort.pk, extension.pk]), follow=True)
    assert "ada is back on the cohort&#x27;s due date for lab-1." in response.content.decode()
    assert not Extension.objects.exists() and export(teacher, cohort)["lab-1 final"] == "0.8"
    again = teacher.post(reverse("instructor:extension_remove", args=[cohort.pk, extension.pk]), follow=True)
    assert "No such extension in this cohort" in again.content.decode()


def test_an_extension_only_moves_its_own_learner(cohort, terms, instructor, learner):
    bob = factories.user("bob")
    MembershipFactory(cohort=cohort, learner=bob)
    for who in (learner, bob):
        factories.submission(who, "lab-1", 1.0, at=DUE + timedelta(hours=3))
    give(signed_in(instructor), cohort, learner, **{"extension-due_at": "2026-11-03T12:00"})
    finals = {row.user.username: row.labs["lab-1"].final for row in cohort_gradebook(cohort).rows}
    assert finals == {"ada": 1.0, "bob": pytest.approx(0.9)}


def test_the_late_due_date_moves_with_the_extension():
    lab_terms = CohortLab(due_at=DUE, late_due_at=DUE + timedelta(days=2), percent_per_day=25)
    terms = own_terms(lab_terms, Extension(due_at=DUE + timedelta(days=5)))
    assert (terms.due_at, terms.late_due_at, terms.is_extended) == (
        DUE + timedelta(days=5),
        DUE + timedelta(days=7),
        True,
    )
    assert own_terms(lab_terms, Extension(due_at=DUE - timedelta(days=1))) is lab_terms  # never stricter
    assert own_terms(lab_terms, None) is lab_terms


def test_the_new_due_date_is_read_and_shown_in_each_persons_time_zone(cohort, terms, instructor, learner):
    teacher = signed_in(instructor, "America/New_York")  # UTC-5 in November
    give(teacher, cohort, learner, **{"extension-due_at": "2026-11-05T09:30"})
    assert Extension.objects.get().due_at == datetime(2026, 11, 5, 14, 30, tzinfo=UTC)
    page = teacher.get(reverse("instructor:learner", args=[cohort.pk, learner.pk])).content.decode()
    assert "2026-11-05 09:30" in page and "America/New_York" in page

    own = signed_in(learner, "Asia/Tokyo")  # UTC+9
    lab_page = own.get(reverse("labs:detail", args=["lab-1"])).content.decode()
    assert "Due <strong>2026-11-05 23:30 (Asia/Tokyo)</strong>, <span" in lab_page and "extended for you" in lab_page
    index = own.get(reverse("labs:index")).content.decode()
    assert "2026-11-05 23:30" in index and "extended for you" in index and "2026-11-02 21:00" not in index


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"extension-due_at": "2026-11-01T12:00"}, "An extension must be later than the cohort&#x27;s due date"),
        ({"extension-due_at": "2026-11-04T12:00", "extension-reason": "  "}, "Give a reason for the extension."),
        ({"extension-due_at": "not a date"}, "Enter a valid date/time."),
        ({"extension-due_at": "2026-11-04T12:00", "extension-lab_slug": "lab-2"}, "Pick a lab that has a due date."),
    ],
)
def test_a_bad_extension_is_a_form_error_and_saves_nothing(cohort, terms, instructor, learner, fields, message):
    response = give(signed_in(instructor), cohort, learner, **fields)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Extension.objects.exists()


def test_a_learner_of_another_cohort_cannot_be_given_one(cohort, terms, instructor, other_cohort):
    outsider = other_cohort.learners.get()
    response = give(signed_in(instructor), cohort, outsider, **{"extension-due_at": "2026-11-04T12:00"})
    assert response.status_code == 404 and not Extension.objects.exists()


def test_grades_show_to_learners_only_once_released(cohort, terms, instructor, learner):
    factories.submission(learner, "lab-1", 0.5, at=DUE - timedelta(hours=1))
    ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="lab",
        target_slug="lab-1",
        score=0.7,
        max_score=1.0,
        reason="Viva went well",
        created_by=instructor,
    )
    own, teacher = signed_in(learner), signed_in(instructor)
    lab_page = own.get(reverse("labs:detail", args=["lab-1"])).content.decode()
    assert "has not released this lab's grades yet" in lab_page
    assert 'id="counted-score"' not in lab_page and "Viva went well" not in lab_page
    index = own.get(reverse("labs:index")).content.decode()
    assert "not released yet" in index and "0.50 / 1.00" in index and "0.70" not in index
    assert "unreleased" in teacher.get(reverse("instructor:matrix", args=[cohort.pk])).content.decode()

    confirm = teacher.get(reverse("instructor:lab_release", args=[cohort.pk, "lab-1"])).content.decode()
    assert "Release the grades of lab-1 to the 1 learner of Spring?" in confirm and not GradeRelease.objects.exists()
    response = teacher.post(reverse("instructor:lab_release", args=[cohort.pk, "lab-1"]), follow=True)
    assert "Grades of lab-1 released" in response.content.decode()
    assert "unreleased" not in response.content.decode().split("<h1>")[1].split("</h1>")[0]

    lab_page = own.get(reverse("labs:detail", args=["lab-1"])).content.decode()
    assert '<strong id="counted-score">0.70 / 1.00</strong>' in lab_page and "Viva went well" in lab_page
    assert "not released yet" not in own.get(reverse("labs:index")).content.decode()
    lab_list = teacher.get(reverse("instructor:matrix", args=[cohort.pk])).content.decode().split("dash-lab-list")[1]
    assert lab_list.split("</p>")[0].count(">unreleased<") == 1  # lab-2 still is, lab-1 is not


def test_releasing_one_cohort_leaves_another_cohorts_learners_waiting(cohort, terms, instructor, learner):
    other = factories.cohort(instructor, [factories.user("bob")], name="Evening")
    bob = other.learners.get()
    factories.submission(bob, "lab-1", 0.5)
    signed_in(instructor).post(reverse("instructor:lab_release", args=[cohort.pk, "lab-1"]))
    page = signed_in(bob).get(reverse("labs:detail", args=["lab-1"])).content.decode()
    assert "has not released this lab's grades yet" in page and 'id="counted-score"' not in page
