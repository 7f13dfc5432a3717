"""Writes for experiments: create (or serve from the cache), enqueue on the GPU worker, ingest its result."""

import hashlib
import json
import logging
from datetime import timedelta

from celery import current_app, signature
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from experiments.models import Experiment
from gpu_worker.contract import wire
from gpu_worker.contract.knobs import KnobError, normalize

log = logging.getLogger(__name__)
Status = Experiment.Status


class ExperimentRefused(Exception):
    """A run the limits refuse; `field` names the knob at fault (None for the rate cap), the message is shown."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


WAITING = (Status.QUEUED, Status.RUNNING)  # not finished: sent to the worker, or being run


def hourly_cap() -> int:
    return int(getattr(settings, "EXPERIMENTS_HOURLY_CAP", 20))


def stale_after() -> timedelta:
    """A queued run older than this was lost (broker or worker gone); it is failed, not polled forever."""
    return timedelta(seconds=float(getattr(settings, "EXPERIMENTS_STALE_S", 900)))


def experiment_expire_stale(*, experiment: Experiment) -> Experiment:
    if not experiment.is_finished and experiment.created < timezone.now() - stale_after():
        Experiment.objects.filter(pk=experiment.pk, status__in=WAITING).update(
            status=Status.FAILED,
            finished=timezone.now(),
            error="No worker answered in time; the run was dropped. Send it again.",
        )
        experiment.refresh_from_db()
    return experiment


def config_hash(knobs: dict) -> str:
    return hashlib.sha256(json.dumps(knobs, sort_keys=True).encode()).hexdigest()


def experiment_create(*, owner, config: dict, preset: str = "") -> Experiment:
    """A run of `config`: done at once when an identical run is done already, else queued for the worker."""
    try:
        knobs = normalize(config)
    except KnobError as error:
        raise ExperimentRefused(error.message, field=error.field) from None
    key = config_hash(knobs)
    cached = Experiment.objects.filter(config_hash=key, status=Status.DONE).order_by("pk").first()
    if cached is not None:  # the engine would compute the same schedule; a repeat costs the worker nothing
        return Experiment.objects.create(
            owner=owner,
            config=knobs,
            config_hash=key,
            preset=preset,
            status=Status.DONE,
            result=cached.result,
            from_cache=True,
            finished=timezone.now(),
        )
    for waiting in Experiment.objects.filter(owner=owner, status__in=WAITING):
        if not experiment_expire_stale(experiment=waiting).is_finished:
            raise ExperimentRefused(
                "Your previous run is still waiting for the worker; it must finish before the next one."
            )
    hour_ago = timezone.now() - timedelta(hours=1)
    used = Experiment.objects.filter(owner=owner, created__gte=hour_ago, from_cache=False).count()
    if used >= hourly_cap():
        raise ExperimentRefused(
            f"You have used your {hourly_cap()} experiment runs for this hour; "
            "runs identical to an earlier one still come back at once."
        )
    experiment = Experiment.objects.create(owner=owner, config=knobs, config_hash=key, preset=preset)
    transaction.on_commit(lambda: enqueue(experiment), robust=True)
    return experiment


def enqueue(experiment: Experiment) -> None:
    current_app.send_task(
        wire.RUN_EXPERIMENT,
        kwargs={"experiment_id": experiment.pk, "config": experiment.config},
        queue=wire.GRADING_QUEUE,
        link=signature(wire.EXPERIMENT_RESULT, queue=wire.WEB_QUEUE),
        # The result comes back through the link; nothing here waits on it, so nothing subscribes to it either
        # (a subscription retried a dead Redis for 20 s, then raised: a 500 on the learner's Run).
        ignore_result=True,
    )


def result_ingest(*, result: dict) -> bool:
    """Record the worker's JSON. Idempotent: only the first result for a queued experiment changes it."""
    try:
        experiment_id = int(result["experiment_id"])
    except (KeyError, TypeError, ValueError):
        log.error("experiments: result without an experiment id ignored: %r", str(result)[:300])
        return False
    ok = result.get("ok") is True and isinstance(result.get("metrics"), dict)
    fields = {
        "status": Status.DONE if ok else Status.FAILED,
        "finished": timezone.now(),
        "result": result if ok else None,
        "error": "" if ok else str(result.get("error") or "The worker sent no result.")[:2000],
    }
    changed = Experiment.objects.filter(pk=experiment_id, status__in=WAITING).update(**fields)
    return bool(changed)


def experiment_mark_running(*, experiment_id) -> bool:
    """A worker picked the experiment up: queued becomes running (a late or repeated note changes nothing)."""
    try:
        experiment_id = int(experiment_id)
    except (TypeError, ValueError):
        return False
    started = Experiment.objects.filter(pk=experiment_id, status=Status.QUEUED)
    return bool(started.update(status=Status.RUNNING, started=timezone.now()))
