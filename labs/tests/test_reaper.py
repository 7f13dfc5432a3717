"""The reaper: a run lost past its lab's wall limit plus the margin is re-queued once, then failed."""

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.reaper import LOST_MESSAGE, submissions_reap_stale
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def margin(settings):
    settings.LABS = {**settings.LABS, "REAP_MARGIN_S": 10, "MAX_REQUEUES": 1}
    return 10


def _age(submission, seconds):
    submission.__class__.objects.filter(pk=submission.pk).update(queued_at=timezone.now() - timedelta(seconds=seconds))


def test_requeues_once_then_fails_with_internal_error(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 5})
    lost = SubmissionFactory(lab=lab, status="running")
    _age(lost, 5 + margin + 1)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_reap_stale() == {"requeued": 1, "failed": 0}
    assert len(callbacks) == 1  # sent to a worker again
    lost.refresh_from_db()
    assert (lost.status, lost.deliveries, lost.verdict) == ("queued", 2, "")

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_reap_stale() == {"requeued": 0, "failed": 0}  # fresh again: not yet stale
    _age(lost, 5 + margin + 1)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_reap_stale() == {"requeued": 0, "failed": 1}
    assert callbacks == []
    lost.refresh_from_db()
    assert (lost.status, lost.verdict, lost.message, lost.score) == ("done", "internal_error", LOST_MESSAGE, None)
    assert lost.finished_at is not None


def test_leaves_recent_and_done_runs_alone(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 60})
    recent = SubmissionFactory(lab=lab)
    _age(recent, 60 + margin - 5)  # past the margin, but not past wall_s + margin
    done = SubmissionFactory(lab=lab, status="done", verdict="accepted")
    _age(done, 10_000)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_reap_stale() == {"requeued": 0, "failed": 0}
    assert callbacks == []
    recent.refresh_from_db()
    done.refresh_from_db()
    assert recent.status == "queued" and done.verdict == "accepted"


def test_a_result_after_the_requeue_still_grades_it(margin, django_capture_on_commit_callbacks):
    from labs.services import result_ingest
    from labs.tests.factories import result_json

    lab = LabFactory(limits={"wall_s": 5})
    lost = SubmissionFactory(lab=lab)
    _age(lost, 100)
    with django_capture_on_commit_callbacks(execute=False):
        submissions_reap_stale()
    assert result_ingest(result=result_json(lost.pk)) is True
    assert result_ingest(result=result_json(lost.pk)) is False  # the first message, delivered late
    lost.refresh_from_db()
    assert (lost.status, lost.verdict, lost.deliveries) == ("done", "accepted", 2)


def _started(submission, seconds_ago):
    submission.__class__.objects.filter(pk=submission.pk).update(
        status="running", started_at=timezone.now() - timedelta(seconds=seconds_ago)
    )


def _grading_worker_beats(grading=None):
    """A live grading worker, recorded as the web task records a real beat."""
    from health.services import heartbeat_record

    heartbeat_record(
        info={
            "host": "gpu-1",
            "node": "gpu1@gpu-1",
            "queues": ["gpu"],
            "grading": grading,
            "sandbox_status": {"ok": True, "level": "bubblewrap", "reason": ""},
        }
    )


def test_a_real_result_after_the_reapers_failure_wins(margin, django_capture_on_commit_callbacks):
    from labs.services import result_ingest
    from labs.tests.factories import result_json

    lab = LabFactory(limits={"wall_s": 5})
    slow = SubmissionFactory(lab=lab, deliveries=2)  # sent twice already: the reaper now fails it
    _age(slow, 100)
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap_stale() == {"requeued": 0, "failed": 1}
    slow.refresh_from_db()
    assert (slow.verdict, slow.message) == ("internal_error", LOST_MESSAGE)

    assert result_ingest(result=result_json(slow.pk)) is True  # slow, not lost: the real verdict counts
    assert result_ingest(result=result_json(slow.pk, verdict="wrong_answer")) is False  # a copy changes nothing
    slow.refresh_from_db()
    assert (slow.status, slow.verdict, slow.score) == ("done", "accepted", 1.0)


def test_a_run_queued_behind_others_is_left_alone_while_the_queue_moves(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 5})
    waiting = SubmissionFactory(lab=lab)
    _age(waiting, 5 + margin + 100)  # sent long ago, but...
    ahead = SubmissionFactory(lab=lab)
    _started(ahead, 2)  # ...the worker started the run ahead of it just now
    _grading_worker_beats(grading=ahead.pk)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_reap_stale() == {"requeued": 0, "failed": 0}
    assert callbacks == []


def test_a_queued_run_is_never_failed_while_a_grading_worker_is_alive(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 5})
    waiting = SubmissionFactory(lab=lab, deliveries=2)
    _age(waiting, 5 + margin + 100)
    _grading_worker_beats()
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap_stale()["failed"] == 0
    waiting.refresh_from_db()
    assert waiting.status == "queued"


def test_a_run_counts_from_when_it_started_not_when_it_was_queued(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 5})
    run = SubmissionFactory(lab=lab)
    _age(run, 5 + margin + 100)  # waited long in the queue...
    _started(run, 3)  # ...and started 3 s ago
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap_stale() == {"requeued": 0, "failed": 0}
    _started(run, 5 + margin + 1)
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap_stale() == {"requeued": 1, "failed": 0}


def test_a_run_its_worker_still_reports_is_left_to_the_worker(margin, django_capture_on_commit_callbacks):
    lab = LabFactory(limits={"wall_s": 5})
    run = SubmissionFactory(lab=lab, deliveries=2)
    _started(run, 5 + margin + 100)
    _grading_worker_beats(grading=run.pk)
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_reap_stale() == {"requeued": 0, "failed": 0}
