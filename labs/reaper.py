"""Finds runs that never came back from a worker: re-queues each once, then fails it as our fault.

A running run counts from when it started; one its worker still reports in a heartbeat is left to
that worker's watchdog. A queued run counts from when it was sent or from the queue's last move
(a run started or finished), whichever is later, so a run waiting behind others is never stale
while the queue moves; and it is never failed while a grading worker is alive. A failure is
marked `reaped`, so a real result that arrives later still replaces it (labs/services.py).

Runs the broker lost when it restarted empty (health/broker_epoch.py) are sent again at the next tick,
within a minute of the broker coming back, without waiting out their limits or counting as a redelivery.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from gpu_worker.contract import wire
from health.broker_epoch import broker_emptied_at
from health.status import fresh_beats
from labs.models import Submission
from labs.services import enqueue

log = logging.getLogger(__name__)
Status = Submission.Status
LOST_MESSAGE = (
    "The grading worker did not answer in time, even after a second try. This is our fault, not "
    "your code's; nothing counts against you, so please run it again."
)


def submissions_reap_stale(*, now=None) -> dict:
    """Re-queue (once) or fail every waiting submission idle past its lab's wall limit plus the margin."""
    now = now or timezone.now()
    margin = settings.LABS["REAP_MARGIN_S"]
    max_deliveries = 1 + settings.LABS["MAX_REQUEUES"]
    counts = {"requeued": 0, "failed": 0}
    waiting = list(
        Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
        .select_related("lab")
        .order_by("queued_at")
    )
    if not waiting:
        return counts
    alive, grading = _grading_workers()
    moved = Submission.objects.aggregate(started=Max("started_at"), finished=Max("finished_at"))
    last_move = max([moment for moment in moved.values() if moment], default=None)
    for submission in waiting:
        if submission.pk in grading:
            continue  # its worker is on it; the worker's watchdog ends the run
        if submission.status == Status.RUNNING and submission.started_at:
            since = submission.started_at
        else:
            since = max(submission.queued_at, last_move) if alive and last_move else submission.queued_at
        if since > now - timedelta(seconds=submission.lab.wall_s + margin):
            continue
        if submission.deliveries < max_deliveries:
            counts["requeued"] += _requeue(submission, now)
        elif submission.status == Status.RUNNING or not alive:
            counts["failed"] += _fail(submission, now)
    if any(counts.values()):
        log.warning("labs reaper: %s", counts)
    return counts


BEAT_SLACK_S = 2.0  # a beat counts as naming what its worker grades once it is this much younger than the start


def submissions_resend_lost(*, now=None) -> int:
    """Send again every waiting run sent to the broker before it last started empty: queued then, or running
    then and named by no live grading worker that has beaten since it started. Returns how many."""
    emptied_at = broker_emptied_at(now=now)
    if emptied_at is None:
        return 0
    now = now or timezone.now()
    lost = list(
        Submission.objects.filter(
            Q(status=Status.QUEUED, queued_at__lt=emptied_at) | Q(status=Status.RUNNING, started_at__lt=emptied_at)
        ).select_related("lab")
    )
    if not lost:
        return 0
    beats = [beat for beat in fresh_beats() if wire.GRADING_QUEUE in (beat.get("queues") or [wire.GRADING_QUEUE])]
    grading = {beat.get("grading") for beat in beats}
    beaten_at = [now - timedelta(seconds=beat["age_s"]) for beat in beats]
    resent = 0
    for submission in lost:
        if submission.pk in grading:
            continue  # a worker took it before the broker went: its result comes from that worker
        if submission.status == Status.RUNNING and not all(
            moment > submission.started_at + timedelta(seconds=BEAT_SLACK_S) for moment in beaten_at
        ):
            continue  # a worker may be on it and not have said so yet: asked again at the next tick
        resent += _resend(submission, now)
    if resent:
        log.warning("labs reaper: %s runs the broker lost sent again (it started empty at %s)", resent, emptied_at)
    return resent


def _resend(submission: Submission, now) -> int:
    with transaction.atomic():
        changed = Submission.objects.filter(
            pk=submission.pk, status=submission.status, queued_at=submission.queued_at
        ).update(status=Status.QUEUED, queued_at=now, started_at=None)
        if changed:
            transaction.on_commit(lambda: enqueue(submission), robust=True)  # broker down again: the next tick
    return changed


def _grading_workers() -> tuple[bool, set[int]]:
    """Whether a grading worker is alive, and the submissions those workers report grading."""
    beats = [beat for beat in fresh_beats() if wire.GRADING_QUEUE in (beat.get("queues") or [wire.GRADING_QUEUE])]
    grading = {beat.get("grading") for beat in beats if isinstance(beat.get("grading"), int)}
    return bool(beats), grading


def _requeue(submission: Submission, now) -> int:
    with transaction.atomic():
        changed = Submission.objects.filter(
            pk=submission.pk,
            deliveries=submission.deliveries,
            status__in=[Status.QUEUED, Status.RUNNING],
        ).update(status=Status.QUEUED, deliveries=submission.deliveries + 1, queued_at=now, started_at=None)
        if changed:
            transaction.on_commit(lambda: enqueue(submission), robust=True)  # broker down: the reaper retries
    return changed


def _fail(submission: Submission, now) -> int:
    return Submission.objects.filter(
        pk=submission.pk,
        deliveries=submission.deliveries,
        status__in=[Status.QUEUED, Status.RUNNING],
    ).update(
        status=Status.DONE,
        verdict=Submission.Verdict.INTERNAL_ERROR,
        message=LOST_MESSAGE,
        score=None,
        max_score=None,
        result={"reaped": True},
        finished_at=now,
    )
