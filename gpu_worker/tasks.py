"""The tasks a GPU worker serves, registered by name on whichever Celery app runs them."""
import os
import platform
import socket
import sys


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
        from gpu_worker.sandbox import sandbox_level

        info["sandbox"] = sandbox_level()
    except Exception:
        info["sandbox"] = "unknown"
    return info


def register_tasks(app) -> None:
    """Register `gpu_worker.*` tasks on `app` (the worker's own, or the combined local one)."""

    @app.task(name="gpu_worker.ping", acks_late=False)
    def ping() -> dict:
        return worker_info()

    @app.task(name="gpu_worker.run_lab")
    def run_lab(submission_id: int, lab: str, mode: str, source: str) -> dict:
        from gpu_worker.labs import run_lab as grade

        # Tell the web side the run has started (the worker never touches its database).
        app.send_task("labs.mark_running", args=[submission_id, socket.gethostname()], queue="default")

        result = grade(submission_id=submission_id, lab=lab, mode=mode, source=source)
        result.setdefault("worker", worker_info())
        return result


if __name__ == "__main__":  # pragma: no cover
    print(worker_info(), file=sys.stderr)
