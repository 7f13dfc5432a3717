"""Django-free: once a Celery worker is ready, tell the web side who it is every ~30 s.

Imported by gpu_worker/celery_app.py and config/celery_local.py; the web task `instructor.worker_heartbeat` records it.
"""
import logging
import os
import threading

from celery.signals import worker_ready

from gpu_worker.tasks import worker_info

log = logging.getLogger(__name__)
INTERVAL_S = float(os.environ.get("WORKER_HEARTBEAT_S", "30"))
TASK_NAME = "instructor.worker_heartbeat"


def send_heartbeat(app, node: str | None = None) -> None:
    info = worker_info()
    if node:
        info["node"] = node
    app.send_task(TASK_NAME, kwargs={"info": info}, queue="default")


def start_heartbeat(app, node: str | None = None, interval_s: float = INTERVAL_S) -> threading.Event:
    """A daemon thread that beats at once and then every `interval_s`; set the returned event to stop it."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            try:
                send_heartbeat(app, node)
            except Exception as error:  # a broker hiccup must not kill the worker; the next beat retries
                log.warning("heartbeat not sent: %s", error)
            if stop.wait(interval_s):
                return

    threading.Thread(target=beat, name="worker-heartbeat", daemon=True).start()
    return stop


@worker_ready.connect(weak=False, dispatch_uid="gpu_worker.heartbeat")
def _on_worker_ready(sender=None, **_kwargs) -> None:
    app = getattr(sender, "app", None)
    if app is not None:
        start_heartbeat(app, node=getattr(sender, "hostname", None))
