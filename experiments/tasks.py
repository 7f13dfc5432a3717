"""Celery tasks of the web side (the web queue) for experiments."""

from celery import shared_task

from experiments import services
from gpu_worker.contract import wire


@shared_task(name=wire.EXPERIMENT_STARTED, acks_late=True)
def mark_running(experiment_id: int, worker_host: str = "") -> bool:
    """A worker sends this when it starts an experiment, so the page can say "running"."""
    return services.experiment_mark_running(experiment_id=experiment_id)


@shared_task(name=wire.EXPERIMENT_RESULT, acks_late=True)
def ingest_result(result: dict) -> bool:
    """Linked to `gpu_worker.run_experiment`: receives its result JSON. A second delivery changes nothing."""
    return services.result_ingest(result=result)
