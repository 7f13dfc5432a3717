"""The tasks a GPU worker serves, registered by name on whichever Celery app runs them."""
import os
import platform
import socket
import sys
import time

# What this process is grading now, for its heartbeat (the reaper leaves a run alone while its
# worker still reports it).
CURRENT: dict = {"submission_id": None, "since": None}
HARD_TIME_LIMIT = float(os.environ.get("GPU_TASK_HARD_TIME_LIMIT", "300"))


def worker_info() -> dict:
    """Who this worker is: host, Python, torch and the CUDA device if there is one."""
    info = {"host": socket.gethostname(), "python": platform.python_version(), "pid": os.getpid()}
    try:
        import torch

        info["torch"] = torch.__version__
        info["cuda"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except Exception as error:  # a worker without torch still answers, and says so
        info["torch"] = None
        info["cuda"] = None
        info["torch_error"] = f"{type(error).__name__}: {error}"
    try:
        from gpu_worker.sandbox.isolation import sandbox_status

        status = sandbox_status()
        info["sandbox"] = status.get("level", "unknown")
        info["sandbox_status"] = status
    except Exception as error:  # say so rather than claim isolation we did not check
        info["sandbox"] = "unknown"
        info["sandbox_status"] = {"ok": False, "level": "unknown", "reason": f"{type(error).__name__}: {error}"}
    try:  # a GPU host whose CUDA is unusable must say so rather than grade on CPU unnoticed
        from gpu_worker.engine.device import device_status

        info["device_status"] = device_status()
    except Exception as error:
        info["device_status"] = {"gpu_host": None, "cuda_usable": False, "device": "unknown",
                                 "reason": f"{type(error).__name__}: {error}"}
    return info


def register_tasks(app) -> None:
    """Register `gpu_worker.*` tasks on `app` (the worker's own, or the combined local one)."""

    @app.task(name="gpu_worker.ping", acks_late=False)
    def ping() -> dict:
        return worker_info()

    @app.task(name="gpu_worker.run_lab")
    def run_lab(submission_id: int, lab: str, mode: str, source: str) -> dict:
        from gpu_worker.labs import run_lab as grade
        from gpu_worker.watchdog import RunTimedOut, call_with_limit

        # Tell the web side the run has started (the worker never touches its database).
        app.send_task("labs.mark_running", args=[submission_id, socket.gethostname()], queue="default")
        CURRENT.update(submission_id=submission_id, since=time.time())
        try:
            result = call_with_limit(
                lambda: grade(submission_id=submission_id, lab=lab, mode=mode, source=source),
                limit_s=HARD_TIME_LIMIT)
        except RunTimedOut as timed_out:
            result = {"submission_id": submission_id, "lab": lab, "mode": mode, "verdict": "internal_error",
                      "score": None, "max_score": None, "tests": [], "metrics": {}, "plots": [], "stdout": "",
                      "message": f"Grading stopped: {timed_out}. This is our fault, not your code's; "
                                 "nothing counts against you, so please run it again."}
        finally:
            CURRENT.update(submission_id=None, since=None)
        result.setdefault("worker", worker_info())
        return result

if __name__ == "__main__":  # pragma: no cover
    print(worker_info(), file=sys.stderr)
