"""Celery tasks of the dashboard (queue `default`)."""
from celery import shared_task

from instructor import services


@shared_task(name="instructor.worker_heartbeat", ignore_result=True)
def worker_heartbeat(info: dict) -> None:
    """Sent every ~30 s by each worker (gpu_worker/heartbeat.py); upserts its WorkerHeartbeat row."""
    services.heartbeat_record(info=info)
