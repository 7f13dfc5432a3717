"""What an instructor touches every day: pre-filled terms rows, pickers, one live override per target,
a submission page that refreshes itself, a copyable join link, the matrix's drill-down."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from cohorts.models import CohortLab, Membership, ScoreOverride
from cohorts.tests.factories import CohortLabFactory
from instructor.tests import factories

pytestmark = pytest.mark.django_db


def roster_page(client, cohort) -> str:
    return client.get(reverse("instructor:roster", args=[cohort.pk])).content.decode()


def test_each_lab_row_is_pre_filled_with_its_current_terms(instructor_client, cohort):
    CohortLabFactory(
        cohort=cohort,
        lab_slug="lab-2",
        due_at="2026-03-01T12:00Z",
        late_due_at="2026-03-04T09:30Z",
        percent_per_day=15,
        weight=3,
    )
    page = roster_page(instructor_client, cohort)
    for value in ('value="2026-03-01T12:00"', 'value="2026-03-04T09:30"', 'value="15.0"', 'value="3.0"'):
        assert value in page, value
    assert 'id="terms-lab-1"' in page and 'id="terms-lab-2"' in page


def test_saving_a_pre_filled_row_with_only_the_weight_changed_keeps_the_dates(instructor_client, cohort):
    url = reverse("instructor:lab_terms_set", args=[cohort.pk])
    instructor_client.post(
        url,
        {
            "lab_slug": "lab-1",
            "due_at": "2026-03-01T12:00",
            "late_due_at": "2026-03-03T12:00",
            "percent_per_day": "10",
            "weight": "1",
        },
    )
    # What the browser sends from the pre-filled row after the weight alone was edited:
    instructor_client.post(
        url,
        {
            "lab_slug": "lab-1",
            "due_at": "2026-03-01T12:00",
            "late_due_at": "2026-03-03T12:00",
            "percent_per_day": "10.0",
            "weight": "4",
        },
    )
    # And a post that names only the weight (an older page, a script) blanks nothing either:
    response = instructor_client.post(url, {"lab_slug": "lab-1", "weight": "5"})
    assert response.status_code == 302
    saved = CohortLab.objects.get(cohort=cohort, lab_slug="lab-1")
    assert (saved.weight, saved.percent_per_day) == (5, 10)
    assert (saved.due_at.isoformat(), saved.late_due_at.isoformat()) == (
        "2026-03-01T12:00:00+00:00",
        "2026-03-03T12:00:00+00:00",
    )


def test_clearing_a_date_on_purpose_still_clears_it(instructor_client, cohort):
    url = reverse("instructor:lab_terms_set", args=[cohort.pk])
    instructor_client.post(url, {"lab_slug": "lab-1", "due_at": "2026-03-01T12:00", "weight": "2"})
    assert instructor_client.post(url, {"lab_slug": "lab-1", "due_at": ""}).status_code == 302
    saved = CohortLab.objects.get()
    assert saved.due_at is None and saved.weight == 2


def test_a_bad_row_shows_its_error_beside_the_others_still_pre_filled(instructor_client, cohort):
    CohortLabFactory(cohort=cohort, lab_slug="lab-2", weight=7)
    response = instructor_client.post(
        reverse("instructor:lab_terms_set", args=[cohort.pk]), {"lab_slug": "lab-1", "weight": "-1"}
    )
    page = response.content.decode()
    assert response.status_code == 400 and "Weight: Ensure this value is greater than or equal to 0." in page
    assert 'value="7.0"' in page and 'value="-1"' in page


def override(client, cohort, learner, score: str, reason: str, target: str = "lab:lab-1"):
    return client.post(
        reverse("instructor:overrides", args=[cohort.pk]),
        {"learner": learner.pk, "target": target, "score": score, "reason": reason},
        follow=True,
    )


def test_a_new_override_of_the_same_target_supersedes_the_active_one(instructor_client, cohort, learner):
    override(instructor_client, cohort, learner, "0.5", "viva")
    response = override(instructor_client, cohort, learner, "0.8", "second viva")
    page = response.content.decode()
    assert "Override saved: lab lab-1 = 0.8. It replaces the override of 0.5 set by grace." in page
    old, new = ScoreOverride.objects.order_by("id")
    assert (old.is_active, old.superseded_by_id, new.is_active) == (False, new.pk, True)
    assert "replaced by grace" in page
    other_target = override(instructor_client, cohort, learner, "50", "project", target="module:m1")
    assert "It replaces" not in other_target.content.decode()
    assert ScoreOverride.objects.filter(undone_at__isnull=True).count() == 2
    grades = instructor_client.get(reverse("instructor:learner", args=[cohort.pk, learner.pk])).context["grades"]
    assert grades.labs["lab-1"].final == 0.8


def test_the_database_refuses_two_active_overrides_of_one_target(cohort, learner, instructor):
    fields = {
        "cohort": cohort,
        "learner": learner,
        "kind": "lab",
        "target_slug": "lab-1",
        "max_score": 1.0,
        "reason": "r",
        "created_by": instructor,
    }
    ScoreOverride.objects.create(score=0.5, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        ScoreOverride.objects.create(score=0.6, **fields)
    ScoreOverride.objects.create(score=0.6, undone_at="2026-01-01T00:00Z", **fields)  # undone ones may pile up


def test_pickers_list_this_cohorts_learners_and_the_course_targets(instructor_client, cohort, learner, other_cohort):
    page = instructor_client.get(reverse("instructor:overrides", args=[cohort.pk])).content.decode()
    assert f'<option value="{learner.pk}">ada</option>' in page
    assert "outsider" not in page
    assert '<optgroup label="Labs">' in page and '<option value="lab:lab-1">Lab 1 (lab-1, max 1)</option>' in page
    assert '<option value="module:m2">2. Module 2 (m2, max 100)</option>' in page
    assert 'name="target_slug"' not in page  # no typed slug any more


def test_an_outsider_cannot_be_picked_by_posting_their_id(instructor_client, cohort, other_cohort):
    outsider = Membership.objects.get(cohort=other_cohort).learner
    response = override(instructor_client, cohort, outsider, "0.5", "sneaky")
    assert response.status_code == 400 and "That learner is not in this cohort." in response.content.decode()
    assert not ScoreOverride.objects.exists()


def test_a_pending_submission_polls_and_the_poll_stops_once_done(instructor_client, cohort, learner):
    original = factories.submission(learner, "lab-1", 0.5)
    regrade = factories.submission(learner, "lab-1", status="queued", regrade_of=original)
    url = reverse("instructor:submission", args=[cohort.pk, regrade.pk])
    page = instructor_client.get(url).content.decode()
    assert 'hx-trigger="every 2s"' in page and "updates itself when it finishes" in page
    origin = instructor_client.get(reverse("instructor:submission", args=[cohort.pk, original.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in origin  # it lists the regrade, so it waits for it too
    assert instructor_client.get(url, HTTP_HX_REQUEST="true").status_code == 200
    type(regrade).objects.filter(pk=regrade.pk).update(
        status="done", verdict="accepted", score=0.9, max_score=1.0, result={"tests": []}
    )
    done = instructor_client.get(url, HTTP_HX_REQUEST="true")
    body = done.content.decode()
    assert done.status_code == 286 and "hx-trigger" not in body and "score 0.9 / 1" in body


def test_the_roster_offers_a_copyable_join_link(instructor_client, cohort):
    page = roster_page(instructor_client, cohort)
    link = f"http://testserver/instructor/join/?code={cohort.join_code}"
    assert f'value="{link}" readonly data-select-on-focus' in page
    assert 'data-copy="#join-link"' in page and "js/instructor/copy.js" in page


def test_a_matrix_cell_opens_that_learners_module(instructor_client, cohort, learner):
    factories.read(learner, "m1", 2)
    factories.submission(learner, "lab-1", 0.8)
    matrix = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk])).content.decode()
    url = reverse("instructor:learner_module", args=[cohort.pk, learner.pk, "m1"])
    assert f'href="{url}"' in matrix
    response = instructor_client.get(url)
    page = response.content.decode()
    assert response.status_code == 200 and "1. Module 1" in page
    assert '<dd class="dash-read">2/3</dd>' in page and '<dd class="dash-lab">80%</dd>' in page
    assert 'value="module:m1" selected' in page  # the override picker starts on this module
    assert (
        instructor_client.get(reverse("instructor:learner_module", args=[cohort.pk, learner.pk, "nope"])).status_code
        == 404
    )


@pytest.mark.parametrize("view", ["lab", "learner"])
def test_a_list_with_pending_runs_polls_until_they_finish(instructor_client, cohort, learner, view):
    original = factories.submission(learner, "lab-1", 0.5)
    regrade = factories.submission(learner, "lab-1", status="queued", regrade_of=original)
    args = [cohort.pk, "lab-1" if view == "lab" else learner.pk]
    url = reverse(f"instructor:{view}", args=args)
    page = instructor_client.get(url).content.decode()
    assert f'hx-get="{url}?part=submissions" hx-trigger="every 2s"' in page
    part = instructor_client.get(url, {"part": "submissions"}, HTTP_HX_REQUEST="true")
    assert part.status_code == 200 and "<html" not in part.content.decode()
    type(regrade).objects.filter(pk=regrade.pk).update(status="done", verdict="accepted", score=0.9, max_score=1.0)
    done = instructor_client.get(url, {"part": "submissions"}, HTTP_HX_REQUEST="true")
    body = done.content.decode()
    assert done.status_code == 286 and "hx-trigger" not in body and "0.9 / 1" in body
    assert 'hx-trigger="every 2s"' not in instructor_client.get(url).content.decode()
