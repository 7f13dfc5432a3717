"""Comments and regrade requests: an instructor comments on a line, the learner reads it, asks for a regrade
with a reason, and the instructor answers from the cohort's queue, regrading it."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.tests.factories import UserFactory
from cohorts.tests.factories import CohortFactory
from labs.models import RegradeRequest, Submission, SubmissionComment
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db
SOURCE = "def kv_bytes_per_token(config, dtype_bytes):\n    return 2 * dtype_bytes  # forgot the layers\n"


@pytest.fixture
def graded(instructor, learner):
    cohort = CohortFactory(name="Winter", instructors=[instructor], learners=[learner])
    submission = SubmissionFactory(
        learner=learner,
        lab=LabFactory(),
        source=SOURCE,
        status="done",
        verdict="wrong_answer",
        score=0.0,
        max_score=1.0,
    )
    return cohort, submission


def test_a_line_comment_reaches_the_learner_and_bad_lines_are_refused(instructor_client, learner, graded):
    cohort, submission = graded
    url = reverse("instructor:comment_add", args=[cohort.pk, submission.pk])
    page = instructor_client.post(url, {"line": "9", "body": "?"}, follow=True).content.decode()
    assert "there is no line 9" in page and not SubmissionComment.objects.exists()
    instructor_client.post(url, {"line": "2", "body": "Multiply by the number of layers."})
    instructor_client.post(url, {"line": "", "body": "Good start overall."})
    reader = Client()
    reader.force_login(learner)
    page = reader.get(submission.get_absolute_url()).content.decode()
    assert "Comments from your instructors" in page and "Multiply by the number of layers." in page
    assert "Line 2: <code>    return 2 * dtype_bytes  # forgot the layers</code>" in page
    assert "Good start overall." in page


def test_a_regrade_request_is_answered_from_the_queue_with_a_regrade(
    instructor_client, learner, graded, django_capture_on_commit_callbacks
):
    cohort, submission = graded
    reader = Client()
    reader.force_login(learner)
    ask = reverse("labs:regrade_request", args=[submission.pk])
    assert "Say a little more" in reader.post(ask, {"reason": "wrong"}, follow=True).content.decode()
    reader.post(ask, {"reason": "My answer counts the layers in the config; please check test 3."})
    assert "already" in reader.post(ask, {"reason": "Once more, please look at it."}, follow=True).content.decode()
    assert RegradeRequest.objects.filter(status="open").count() == 1
    stranger = Client()
    stranger.force_login(UserFactory(username="eve"))
    assert stranger.post(ask, {"reason": "Let me ask for someone else."}).status_code == 404
    queue = instructor_client.get(reverse("instructor:requests", args=[cohort.pk])).content.decode()
    assert "please check test 3" in queue
    request_id = RegradeRequest.objects.get().pk
    with django_capture_on_commit_callbacks():  # the regrade is queued on commit (no broker needed here)
        instructor_client.post(
            reverse("instructor:request_answer", args=[cohort.pk, request_id]),
            {"answer": "You are right: test 3 had a bug. Regraded.", "regrade": "1"},
        )
    answered = RegradeRequest.objects.get()
    regrade = Submission.objects.get(regrade_of=submission)
    assert answered.status == "answered" and answered.regrade == regrade
    page = reader.get(submission.get_absolute_url()).content.decode()
    assert "You are right: test 3 had a bug." in page and f"#{regrade.pk}" in page
    assert (
        "No request is waiting."
        in instructor_client.get(reverse("instructor:requests", args=[cohort.pk])).content.decode()
    )
