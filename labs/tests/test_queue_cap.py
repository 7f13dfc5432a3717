"""The site-wide cap on waiting runs: a full queue answers with a message and keeps the learner's code."""

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from labs.models import Submission
from labs.services import submission_regrade
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def full_queue():
    lab = LabFactory()
    waiting = [SubmissionFactory(lab=lab, status="queued"), SubmissionFactory(lab=lab, status="running")]
    with override_settings(LABS={**settings.LABS, "QUEUE_CAP": 2}):
        yield lab, waiting


def test_a_full_queue_refuses_with_a_message_and_keeps_the_code(
    learner_client, full_queue, django_capture_on_commit_callbacks
):
    lab, _ = full_queue
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = learner_client.post(
            reverse("labs:detail", args=[lab.slug]), {"source": "answer = 42  # mine\n", "mode": "submit"}
        )
    page = response.content.decode()
    assert response.status_code == 400 and "The grading queue is full right now" in page
    assert "answer = 42  # mine" in page  # still in the editor
    assert Submission.objects.count() == 2 and not callbacks


def test_the_queue_takes_runs_again_once_one_finishes(learner_client, full_queue, django_capture_on_commit_callbacks):
    lab, waiting = full_queue
    Submission.objects.filter(pk=waiting[0].pk).update(status="done", verdict="accepted")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = learner_client.post(reverse("labs:detail", args=[lab.slug]), {"source": "x = 1\n", "mode": "run"})
    assert response.status_code == 302 and Submission.objects.count() == 3 and len(callbacks) == 1


def test_an_instructors_regrade_is_not_held_by_the_cap(full_queue, django_capture_on_commit_callbacks):
    lab, waiting = full_queue
    original = SubmissionFactory(lab=lab, status="done")
    with django_capture_on_commit_callbacks(execute=False):
        regrade = submission_regrade(submission=original)
    assert regrade.regrade_of == original and regrade.status == "queued"
