"""Who a worker is, in one place: the `worker` of every lab result, the ping answer and the heartbeat."""

import os
import platform
import socket

from gpu_worker import versions
from gpu_worker.contract.result import WorkerInfo


def process_info() -> WorkerInfo:
    """Host, Python and process id: what any worker says, without importing torch."""
    return {"host": socket.gethostname(), "python": platform.python_version(), "pid": os.getpid()}


def worker_info(health: bool = True) -> WorkerInfo:
    """A grading worker: the process, torch and its device, the sandbox level.

    `health` adds the sandbox and device probes' full status (the ping and the heartbeat carry them);
    a probe that fails says so rather than claim isolation or a GPU nobody checked."""
    info = {**process_info(), **_torch_info()}
    if health:
        info.update(_sandbox_status(), device_status=_device_status(), version_problems=versions.problems())
    else:
        from gpu_worker.sandbox.isolation import sandbox_level

        info["sandbox"] = sandbox_level()
    return info


def _torch_info() -> dict:
    try:
        import torch

        cuda = torch.cuda.is_available()
        # the GPU model: leaderboards rank per model
        return {
            "torch": torch.__version__,
            "device": "cuda" if cuda else "cpu",
            "cuda": torch.cuda.get_device_name(0) if cuda else None,
        }
    except Exception as error:  # a worker without torch still answers, and says so
        return {"torch": None, "cuda": None, "torch_error": f"{type(error).__name__}: {error}"}


def _sandbox_status() -> dict:
    try:
        from gpu_worker.sandbox.isolation import sandbox_status

        status = sandbox_status()
        return {"sandbox": status.get("level", "unknown"), "sandbox_status": status}
    except Exception as error:
        return {
            "sandbox": "unknown",
            "sandbox_status": {"ok": False, "level": "unknown", "reason": f"{type(error).__name__}: {error}"},
        }


def _device_status() -> dict:
    try:  # a GPU host whose CUDA is unusable must say so rather than grade on CPU unnoticed
        from gpu_worker.engine.device import device_status

        return device_status()
    except Exception as error:
        return {
            "gpu_host": None,
            "cuda_usable": False,
            "device": "unknown",
            "reason": f"{type(error).__name__}: {error}",
        }
