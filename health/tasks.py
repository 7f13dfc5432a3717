"""The web worker's task that records heartbeats (web queue)."""

from celery import shared_task

from gpu_worker.contract import wire
from health import services


@shared_task(name=wire.WORKER_HEARTBEAT, ignore_result=True)
def worker_heartbeat(info: dict) -> None:
    """Sent by each worker every `wire.HEARTBEAT_INTERVAL_S` (gpu_worker/heartbeat.py); upserts its row."""
    services.heartbeat_record(info=info)
