"""The tasks a GPU worker serves, registered by name on whichever Celery app runs them."""

import socket
import sys
import time

from gpu_worker.contract import wire
from gpu_worker.worker_info import worker_info

# What this process is grading now, for its heartbeat (the reaper leaves a run alone while its
# worker still reports it).
CURRENT: dict = {"submission_id": None, "since": None}


def register_tasks(app) -> None:
    """Register the grading tasks on `app` (the worker's own, or the combined local one)."""

    @app.task(name=wire.PING, acks_late=False)
    def ping() -> dict:
        return worker_info()

    @app.task(name=wire.RUN_LAB)
    def run_lab_task(submission_id: int, lab: str, mode: str, source: str, custom=None) -> dict:
        from gpu_worker.grading import grade_run

        # Tell the web side the run has started (the worker never touches its database).
        app.send_task(wire.LAB_STARTED, args=[submission_id, socket.gethostname()], queue=wire.WEB_QUEUE)
        CURRENT.update(submission_id=submission_id, since=time.time())
        try:
            return grade_run(submission_id, lab, mode, source, limit_s=wire.HARD_TIME_LIMIT_S, custom=custom)
        finally:
            CURRENT.update(submission_id=None, since=None)


if __name__ == "__main__":  # pragma: no cover
    print(worker_info(), file=sys.stderr)
