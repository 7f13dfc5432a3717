"""Celery tasks of the web side (the web queue): they take ids and JSON and call the services."""

from celery import shared_task

from gpu_worker.contract import wire
from gpu_worker.contract.result import LabResult
from labs import reaper, services


@shared_task(name=wire.LAB_RESULT, acks_late=True)
def ingest_result(result: LabResult) -> bool:
    """Linked to `gpu_worker.run_lab`: receives its result JSON. A second delivery changes nothing."""
    return services.result_ingest(result=result)


@shared_task(name=wire.LAB_STARTED, acks_late=True)
def mark_running(submission_id: int, worker_host: str = "") -> bool:
    """A worker sends this when it starts a run, so the page can say "running"."""
    return services.submission_mark_running(submission_id=submission_id, worker_host=worker_host)


@shared_task(name=wire.LAB_REAP)
def reap_stale() -> dict:
    """Every ~30 s (CELERY_BEAT_SCHEDULE): send again what the broker lost, re-queue or fail runs that never
    came back."""
    resent = reaper.submissions_resend_lost()
    return {**reaper.submissions_reap_stale(), "resent": resent}
