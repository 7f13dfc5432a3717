"""Finds runs that never came back from a worker: re-queues each once, then fails it as our fault."""
import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from labs.models import Submission
from labs.services import enqueue

log = logging.getLogger(__name__)
Status = Submission.Status
LOST_MESSAGE = ("The grading worker did not answer in time, even after a second try. This is our fault, not "
                "your code's; nothing counts against you, so please run it again.")


def submissions_reap_stale(*, now=None) -> dict:
    """Re-queue (once) or fail every queued/running submission past its lab's wall limit plus the margin."""
    now = now or timezone.now()
    margin = settings.LABS["REAP_MARGIN_S"]
    max_attempts = 1 + settings.LABS["MAX_REQUEUES"]
    counts = {"requeued": 0, "failed": 0}
    waiting = (Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING],
                                         queued_at__lt=now - timedelta(seconds=margin))
               .select_related("lab").order_by("queued_at"))
    for submission in waiting:
        if submission.queued_at > now - timedelta(seconds=submission.lab.wall_s + margin):
            continue
        if submission.attempts < max_attempts:
            counts["requeued"] += _requeue(submission, now)
        else:
            counts["failed"] += _fail(submission, now)
    if any(counts.values()):
        log.warning("labs reaper: %s", counts)
    return counts


def _requeue(submission: Submission, now) -> int:
    with transaction.atomic():
        changed = Submission.objects.filter(
            pk=submission.pk, attempts=submission.attempts, status__in=[Status.QUEUED, Status.RUNNING],
        ).update(status=Status.QUEUED, attempts=submission.attempts + 1, queued_at=now, started_at=None)
        if changed:
            transaction.on_commit(lambda: enqueue(submission), robust=True)  # broker down: the reaper retries
    return changed


def _fail(submission: Submission, now) -> int:
    return Submission.objects.filter(
        pk=submission.pk, attempts=submission.attempts, status__in=[Status.QUEUED, Status.RUNNING],
    ).update(status=Status.DONE, verdict="internal_error", message=LOST_MESSAGE, score=None, max_score=None,
             finished_at=now)
