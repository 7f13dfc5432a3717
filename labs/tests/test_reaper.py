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
    assert (lost.status, lost.attempts, lost.verdict) == ("queued", 2, "")

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
    assert (lost.status, lost.verdict, lost.attempts) == ("done", "accepted", 2)
