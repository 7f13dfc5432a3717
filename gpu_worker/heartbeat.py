"""Django-free: once a Celery worker is ready, tell the web side who it is every few seconds.

Imported by gpu_worker/celery_app.py, config/celery_local.py and the web worker (config/celery.py);
the web task `health.worker_heartbeat` (`wire.WORKER_HEARTBEAT`) records each beat, and /healthz reads those records
instead of sending a task per hit. A beat says which queues the worker serves, whether it can
isolate learner code (grading queue only) and which run it is grading now.
"""

import logging
import threading

from celery.signals import worker_ready

from gpu_worker import versions
from gpu_worker.contract import wire
from gpu_worker.worker_info import process_info, worker_info

log = logging.getLogger(__name__)


def beat_info(queues: list[str], node: str | None = None) -> dict:
    """What one beat carries; only a grading worker pays for torch and the sandbox probe."""
    if wire.GRADING_QUEUE in queues:
        from gpu_worker.tasks import CURRENT

        info = {**worker_info(), "grading": CURRENT.get("submission_id")}
    else:
        info = process_info()
    info["queues"] = sorted(queues)
    if node:
        info["node"] = node
    return info


def broker_clocks(app) -> dict:
    """The clocks this worker's app really runs by, so the web side can tell whether every app on the broker
    redelivers after the same time, above every hard limit (a run redelivered while graded goes twice)."""
    return {
        "visibility_timeout_s": (app.conf.broker_transport_options or {}).get("visibility_timeout"),
        "hard_time_limit_s": app.conf.task_time_limit,
    }


def send_heartbeat(app, node: str | None = None, queues: list[str] | None = None) -> None:
    queues = queues if queues is not None else [wire.GRADING_QUEUE]
    info = {**beat_info(queues, node), **broker_clocks(app)}
    app.send_task(wire.WORKER_HEARTBEAT, kwargs={"info": info}, queue=wire.WEB_QUEUE)


def start_heartbeat(
    app, node: str | None = None, interval_s: float = wire.HEARTBEAT_INTERVAL_S, queues: list[str] | None = None
) -> threading.Event:
    """A daemon thread that beats at once and then every `interval_s`; set the returned event to stop it."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            try:
                send_heartbeat(app, node, queues)
            except Exception as error:  # a broker hiccup must not kill the worker; the next beat retries
                log.warning("heartbeat not sent: %s", error)
            if stop.wait(interval_s):
                return

    threading.Thread(target=beat, name="worker-heartbeat", daemon=True).start()
    return stop


def _consumed_queues(app) -> list[str]:
    try:
        return sorted(app.amqp.queues.consume_from or app.amqp.queues)
    except Exception:  # an unusual app: say the grading queue, the one this module was written for
        return [wire.GRADING_QUEUE]


@worker_ready.connect(weak=False, dispatch_uid="gpu_worker.heartbeat")
def _on_worker_ready(sender=None, **_kwargs) -> None:
    for problem in versions.problems():  # supported range: gpu_worker/versions.py
        log.warning(
            "unsupported worker dependency: %s (supported: gpu_worker/versions.py; README, A GPU host)", problem
        )
    app = getattr(sender, "app", None)
    if app is not None:
        start_heartbeat(app, node=getattr(sender, "hostname", None), queues=_consumed_queues(app))
