"""The learner, lab, submission, regrade, override and queue pages, as an instructor sees them."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cohorts.models import ScoreOverride
from cohorts.tests.factories import MembershipFactory, ScoreOverrideFactory
from health.tests.factories import WorkerHeartbeatFactory
from instructor.tests import factories
from labs.models import Submission

pytestmark = pytest.mark.django_db
RESULT = {
    "tests": [
        {
            "name": "hidden-gqa",
            "visibility": "hidden",
            "passed": False,
            "score": 0,
            "max_score": 0.5,
            "message": "expected 98304",
        }
    ],
    "metrics": {"median_ms": 1.9},
    "stdout": "learner says hi",
    "plots": [{"title": "Latency by batch", "figure": {"data": [{"type": "scatter", "x": [1], "y": [2]}]}}],
}


def test_learner_page_shows_submissions_attempts_and_grades(instructor_client, cohort, learner):
    sub = factories.submission(
        learner, "lab-1", 0.5, verdict="wrong_answer", source="def kv():\n    return 42\n", result=RESULT
    )
    factories.submission(learner, "lab-2", None, mode="run", at=timezone.now() - timedelta(days=2))
    response = instructor_client.get(reverse("instructor:learner", args=[cohort.pk, learner.pk]))
    page = response.content.decode()
    assert f"#{sub.pk}" in page and "wrong_answer" in page and 'data-lab="lab-1"' in page
    assert "static/vendor/plotly.min.js" in page and "cdn" not in page.lower()
    timeline = response.context["timeline"]
    assert timeline["data"][0]["name"] == "lab-1: each run" and timeline["data"][0]["y"] == [50.0]


def test_submission_detail_shows_code_tests_and_plots_also_as_a_partial(instructor_client, cohort, learner):
    sub = factories.submission(learner, "lab-1", 0.5, source="def kv():\n    return 42\n", result=RESULT)
    url = reverse("instructor:submission", args=[cohort.pk, sub.pk])
    page = instructor_client.get(url).content.decode()
    assert "return 42" in page and "expected 98304" in page and "Latency by batch" in page
    assert "data-plot" in page and "learner says hi" in page and "<html" in page
    partial = instructor_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "return 42" in partial and "<html" not in partial


def test_lab_page_lists_the_cohorts_submissions_with_verdicts_and_histogram(
    instructor_client, cohort, learner, other_cohort
):
    factories.submission(learner, "lab-1", 1.0)
    factories.submission(learner, "lab-1", 0.2, verdict="wrong_answer")
    factories.submission(learner, "lab-1", None, status="queued")
    response = instructor_client.get(reverse("instructor:lab", args=[cohort.pk, "lab-1"]))
    assert len(response.context["submissions"]) == 3  # the other cohort's submission is not here
    assert dict(response.context["verdicts"]) == {"accepted": 1, "wrong_answer": 1, "queued": 1}
    histogram = response.context["histogram"]["data"][0]
    assert histogram["type"] == "bar" and histogram["y"] == [0, 0, 1, 0, 0, 0, 0, 0, 0, 1]  # 0.2 and 1.0


def test_regrade_one_keeps_both_and_the_gradebook_uses_the_newest(
    instructor_client, cohort, learner, django_capture_on_commit_callbacks
):
    original = factories.submission(learner, "lab-1", 0.4)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = instructor_client.post(reverse("instructor:submission_regrade", args=[cohort.pk, original.pk]))
    regrade = Submission.objects.get(regrade_of=original)
    assert response.status_code == 302 and len(callbacks) == 1  # enqueued through the labs queue on commit
    assert (regrade.status, regrade.source, regrade.learner) == ("queued", original.source, learner)
    Submission.objects.filter(pk=regrade.pk).update(
        status="done", verdict="accepted", score=0.9, max_score=1.0, finished_at=timezone.now()
    )
    page = instructor_client.get(reverse("instructor:learner", args=[cohort.pk, learner.pk]))
    assert page.context["grades"].labs["lab-1"].final == 0.9
    assert f"regrade of #{original.pk}" in page.content.decode()


def test_regrade_all_takes_each_learners_latest_submit(
    instructor_client, cohort, learner, django_capture_on_commit_callbacks
):
    factories.submission(learner, "lab-1", 0.1, at=timezone.now() - timedelta(hours=2))
    latest = factories.submission(learner, "lab-1", 0.3, at=timezone.now() - timedelta(hours=1))
    factories.submission(learner, "lab-1", None, mode="run")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = instructor_client.post(reverse("instructor:lab_regrade", args=[cohort.pk, "lab-1"]), follow=True)
    assert "1 latest submission queued for regrading." in response.content.decode()
    assert list(Submission.objects.filter(regrade_of__isnull=False).values_list("regrade_of", flat=True)) == [latest.pk]
    assert len(callbacks) == 1


def test_override_shows_in_the_audit_list_and_can_be_undone(instructor_client, cohort, learner, instructor):
    url = reverse("instructor:overrides", args=[cohort.pk])
    instructor_client.post(url, {"learner": learner.pk, "target": "module:m1", "score": "80", "reason": "project work"})
    page = instructor_client.get(url).content.decode()
    assert "project work" in page and "module m1" in page and "grace" in page and "Undo" in page
    override = ScoreOverride.objects.get()
    response = instructor_client.post(reverse("instructor:override_undo", args=[cohort.pk, override.pk]), follow=True)
    override.refresh_from_db()
    assert override.undone_by == instructor and "undone by grace" in response.content.decode()
    again = instructor_client.post(reverse("instructor:override_undo", args=[cohort.pk, override.pk]), follow=True)
    assert "That override was undone already." in again.content.decode()


def test_queue_health_shows_counts_and_workers(instructor_client, cohort, learner):
    factories.submission(learner, "lab-1", None, status="queued", at=timezone.now() - timedelta(seconds=90))
    factories.submission(learner, "lab-2", None, status="running")
    WorkerHeartbeatFactory(
        name="celery@gpu-1",
        host="gpu-1",
        last_seen=timezone.now(),
        info={"host": "gpu-1", "torch": "2.13.0", "cuda": "NVIDIA H200"},
    )
    WorkerHeartbeatFactory(name="celery@old", host="old", info={}, last_seen=timezone.now() - timedelta(hours=1))
    response = instructor_client.get(reverse("instructor:queue"))
    page = response.content.decode()
    assert response.context["stats"]["queued"] == 1 and response.context["stats"]["running"] == 1
    assert response.context["stats"]["oldest_queued_age_s"] >= 90
    assert "NVIDIA H200" in page and "2.13.0" in page and "gpu-1" in page
    assert [w["online"] for w in response.context["workers"]] == [True, False]
    partial = instructor_client.get(reverse("instructor:queue"), HTTP_HX_REQUEST="true").content.decode()
    assert partial.startswith('\n<div id="queue-health"') or partial.lstrip().startswith('<div id="queue-health"')


def add_rows(cohort, learner, instructor, n: int, tag: str) -> None:
    for i in range(n):
        factories.submission(learner, "lab-1", 0.5)
        member = factories.user(f"{tag}{i}")
        MembershipFactory(cohort=cohort, learner=member)
        ScoreOverrideFactory(
            cohort=cohort,
            learner=member,
            kind="lab",
            target_slug="lab-1",
            score=0.5,
            max_score=1.0,
            reason="r",
            created_by=instructor,
        )


@pytest.mark.parametrize(
    "view, args", [("lab", ["lab-1"]), ("learner", ["LEARNER"]), ("overrides", []), ("roster", [])]
)
def test_list_pages_have_a_fixed_number_of_queries(
    instructor_client, cohort, learner, instructor, view, args, django_assert_num_queries
):
    """The same count with 1 or 20 submissions, overrides and members: nothing is fetched per row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = reverse(f"instructor:{view}", args=[cohort.pk, *[learner.pk if a == "LEARNER" else a for a in args]])
    add_rows(cohort, learner, instructor, 1, "a")
    instructor_client.get(url)  # both counts below are of a page whose cached reads (common/readcache.py) are warm
    with CaptureQueriesContext(connection) as small:
        assert instructor_client.get(url).status_code == 200
    queries = len(small)  # now: the next request clears what `small` counted
    add_rows(cohort, learner, instructor, 19, "b")
    instructor_client.get(url)
    with django_assert_num_queries(queries):
        assert instructor_client.get(url).status_code == 200
