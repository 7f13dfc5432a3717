"""Celery tasks of the web side (queue `default`) for experiments."""
from celery import shared_task

from experiments import services


@shared_task(name="experiments.ingest_result", acks_late=True)
def ingest_result(result: dict) -> bool:
    """Linked to `gpu_worker.run_experiment`: receives its result JSON. A second delivery changes nothing."""
    return services.result_ingest(result=result)
