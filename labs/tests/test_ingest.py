"""labs.ingest_result: the first result grades the submission; a second delivery changes nothing."""

import pytest

from labs.models import Submission
from labs.services import result_ingest, submission_mark_running
from labs.tasks import ingest_result
from labs.tests.factories import SubmissionFactory, result_json

pytestmark = pytest.mark.django_db


def test_result_grades_the_submission():
    submission = SubmissionFactory()
    assert ingest_result(result_json(submission.pk, verdict="wrong_answer", score=0.5)) is True
    submission.refresh_from_db()
    assert (submission.status, submission.verdict, submission.score, submission.max_score) == (
        "done",
        "wrong_answer",
        0.5,
        1.0,
    )
    assert submission.worker_host == "gpu-host-1"
    assert submission.finished_at is not None and submission.started_at is not None
    assert submission.result["tests"][1]["name"] == "hidden-gqa-3"


def test_same_result_twice_changes_once():
    submission = SubmissionFactory()
    first = result_json(submission.pk, verdict="accepted", score=1.0)
    assert result_ingest(result=first) is True
    submission.refresh_from_db()
    snapshot = (submission.verdict, submission.score, submission.finished_at, submission.result)
    assert result_ingest(result=first) is False
    assert result_ingest(result=result_json(submission.pk, verdict="wrong_answer", score=0.0)) is False
    submission.refresh_from_db()
    assert (submission.verdict, submission.score, submission.finished_at, submission.result) == snapshot


def test_run_mode_records_no_score():
    submission = SubmissionFactory(mode="run")
    result = result_json(submission.pk, mode="run")
    result["score"] = 1.0  # even if a worker sent one
    result_ingest(result=result)
    submission.refresh_from_db()
    assert submission.verdict == "accepted" and submission.score is None


@pytest.mark.parametrize("bad", [{}, {"submission_id": "x"}, {"submission_id": 987654}])
def test_result_without_a_known_submission_is_ignored(bad):
    submission = SubmissionFactory()
    assert result_ingest(result=bad) is False
    submission.refresh_from_db()
    assert submission.status == "queued"


def test_unknown_verdict_becomes_internal_error_and_stdout_is_capped(settings):
    settings.LABS = {**settings.LABS, "STDOUT_CHARS": 100}
    submission = SubmissionFactory()
    result = result_json(submission.pk)
    result["verdict"] = "totally_fine"
    result["stdout"] = "x" * 10_000
    result_ingest(result=result)
    submission.refresh_from_db()
    assert submission.verdict == "internal_error" and "totally_fine" in submission.message
    assert len(submission.result["stdout"]) < 200 and submission.result["stdout"].endswith("(output truncated)")


def test_mark_running_moves_queued_and_restarts_a_redelivered_run():
    submission = SubmissionFactory()
    assert submission_mark_running(submission_id=submission.pk, worker_host="h") is True
    first = Submission.objects.get(pk=submission.pk).started_at
    # The broker delivers it again after its first worker died: the clock starts again.
    assert submission_mark_running(submission_id=submission.pk, worker_host="h2") is True
    submission.refresh_from_db()
    assert submission.status == "running" and submission.started_at > first and submission.worker_host == "h2"
    started = submission.started_at
    result_ingest(result=result_json(submission.pk))
    submission.refresh_from_db()
    assert submission.status == "done" and submission.started_at == started
    assert Submission.objects.get(pk=submission.pk).verdict == "accepted"
    assert submission_mark_running(submission_id=submission.pk, worker_host="h") is False  # done stays done
