"""The tasks a GPU worker serves, registered by name on whichever Celery app runs them."""
import os
import socket
import sys
import time

from gpu_worker.worker_info import worker_info

# What this process is grading now, for its heartbeat (the reaper leaves a run alone while its
# worker still reports it).
CURRENT: dict = {"submission_id": None, "since": None}
HARD_TIME_LIMIT = float(os.environ.get("GPU_TASK_HARD_TIME_LIMIT", "300"))


def register_tasks(app) -> None:
    """Register `gpu_worker.*` tasks on `app` (the worker's own, or the combined local one)."""

    @app.task(name="gpu_worker.ping", acks_late=False)
    def ping() -> dict:
        return worker_info()

    @app.task(name="gpu_worker.run_lab")
    def run_lab_task(submission_id: int, lab: str, mode: str, source: str) -> dict:
        from gpu_worker.labs import grade_run

        # Tell the web side the run has started (the worker never touches its database).
        app.send_task("labs.mark_running", args=[submission_id, socket.gethostname()], queue="default")
        CURRENT.update(submission_id=submission_id, since=time.time())
        try:
            return grade_run(submission_id, lab, mode, source, limit_s=HARD_TIME_LIMIT)
        finally:
            CURRENT.update(submission_id=None, since=None)


if __name__ == "__main__":  # pragma: no cover
    print(worker_info(), file=sys.stderr)
