"""Every form rejects bad input with a message on the page, never a 500, and writes nothing."""

import pytest
from django.urls import reverse

from cohorts.models import CohortLab, ScoreOverride

pytestmark = pytest.mark.django_db


def override(client, cohort, member, **fields):
    data = {"learner": member.pk, "target": "lab:lab-1", "score": "0.5", "reason": "viva", **fields}
    return client.post(reverse("instructor:overrides", args=[cohort.pk]), data)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"score": "-0.1"}, "The score cannot be negative."),
        ({"score": "1.5"}, "The score cannot be above the maximum, 1."),
        ({"target": "module:m1", "score": "101"}, "The score cannot be above the maximum, 100."),
        ({"reason": "   "}, "Give a reason for the override."),
        ({"target": "lab:no-such-lab"}, "Pick a lab or module of this course."),
        ({"target": "module:lab-1"}, "Pick a lab or module of this course."),
        ({"target": "grade:lab-1"}, "Pick a lab or module of this course."),
        ({"target": ""}, "This field is required."),
        ({"score": "lots"}, "Enter a number."),
        ({"score": "nan"}, "Enter a number."),
        ({"learner": "x"}, "That learner is not in this cohort."),
        ({"learner": "999999"}, "That learner is not in this cohort."),
    ],
)
def test_override_form_rejects_bad_input(instructor_client, cohort, learner, fields, message):
    response = override(instructor_client, cohort, learner, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ScoreOverride.objects.exists()


def test_override_form_accepts_a_good_one_and_records_who(instructor_client, cohort, learner, instructor):
    response = override(instructor_client, cohort, learner, score="0.75", reason="oral exam")
    assert response.status_code == 302
    saved = ScoreOverride.objects.get()
    assert (saved.score, saved.max_score, saved.created_by, saved.reason) == (0.75, 1.0, instructor, "oral exam")


def terms_set(client, cohort, **fields):
    data = {
        "lab_slug": "lab-1",
        "due_at": "2026-03-01T12:00",
        "late_due_at": "2026-03-03T12:00",
        "percent_per_day": "10",
        "weight": "2",
        **fields,
    }
    return client.post(reverse("instructor:lab_terms_set", args=[cohort.pk]), data)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"late_due_at": "2026-02-28T12:00"}, "The late due date must not be before the due date."),
        ({"due_at": ""}, "Set a due date before a late due date."),
        ({"lab_slug": "no-such-lab"}, "Select a valid choice. no-such-lab is not one of the available choices."),
        ({"percent_per_day": "-5"}, "Ensure this value is greater than or equal to 0."),
        ({"percent_per_day": "150"}, "Ensure this value is less than or equal to 100."),
        ({"weight": "-1"}, "Ensure this value is greater than or equal to 0."),
        ({"due_at": "yesterday"}, "Enter a valid date/time."),
    ],
)
def test_terms_form_rejects_bad_input(instructor_client, cohort, fields, message):
    response = terms_set(instructor_client, cohort, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not CohortLab.objects.exists()


def test_terms_form_saves_and_updates(instructor_client, cohort):
    assert terms_set(instructor_client, cohort).status_code == 302
    assert terms_set(instructor_client, cohort, percent_per_day="20").status_code == 302
    saved = CohortLab.objects.get()
    assert (saved.percent_per_day, saved.weight, saved.due_at.isoformat()) == (20, 2, "2026-03-01T12:00:00+00:00")
    page = instructor_client.get(reverse("instructor:roster", args=[cohort.pk])).content.decode()
    assert 'value="2026-03-03T12:00"' in page


@pytest.mark.parametrize("value, message", [("-1", "greater than or equal to 0"), ("heavy", "Enter a number.")])
def test_drill_weight_rejects_bad_input(instructor_client, cohort, value, message):
    response = instructor_client.post(reverse("instructor:weight_set", args=[cohort.pk]), {"drill_weight": value})
    assert response.status_code == 400 and message in response.content.decode()
    cohort.refresh_from_db()
    assert cohort.drill_weight == 0


def test_empty_cohort_name_and_a_malformed_address_are_refused(instructor_client, cohort):
    response = instructor_client.post(reverse("instructor:index"), {"name": "  "})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    response = instructor_client.post(reverse("instructor:roster_invite", args=[cohort.pk]), {"email": "nobody"})
    assert response.status_code == 400 and "Enter a valid email address." in response.content.decode()


def test_regrading_a_run_or_an_unknown_lab_is_refused(instructor_client, cohort, learner):
    from instructor.tests import factories

    run = factories.submission(learner, "lab-1", None, mode="run")
    response = instructor_client.post(reverse("instructor:submission_regrade", args=[cohort.pk, run.pk]), follow=True)
    assert "a run has no score to regrade" in response.content.decode()
    response = instructor_client.post(reverse("instructor:lab_regrade", args=[cohort.pk, "nope"]), follow=True)
    assert "There is no lab &#x27;nope&#x27;." in response.content.decode()
    assert instructor_client.get(reverse("instructor:lab", args=[cohort.pk, "nope"])).status_code == 404
