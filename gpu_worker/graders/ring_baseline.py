"""The library all-reduce the ring lab compares against: trusted ranks (our code, no learner code),
on gloo, timed by those ranks. Measured once per worker process and kept, since it does not
depend on the submission."""

import threading

import torch

from gpu_worker.collectives.bandwidth import time_call
from gpu_worker.collectives.launcher import launch

BACKEND = "gloo"  # ring-lab tensors are on the CPU: NCCL would fail on a host with GPUs
_cache: dict[tuple, list] = {}
_lock = threading.Lock()


def _time_library(comm, sizes: list[int]) -> list[tuple[int, float]]:
    import torch.distributed as dist

    rows = []
    for numel in sizes:
        tensor = torch.ones(numel, dtype=torch.float32)  # [numel]
        rows.append((numel, time_call(lambda: dist.all_reduce(tensor), comm, target_seconds=0.05)))
    return rows


def library_seconds(world_size: int, sizes: tuple[int, ...], timeout: float = 60.0) -> dict[int, float]:
    """numel -> seconds per dist.all_reduce of that many float32 on `world_size` gloo ranks."""
    key = (world_size, tuple(sizes))
    with _lock:
        if key not in _cache:
            _cache[key] = launch(_time_library, world_size, args=(list(sizes),), timeout=timeout, backend=BACKEND)[0]
        return dict(_cache[key])


def warm_in_background(world_size: int, sizes: tuple[int, ...]) -> threading.Thread:
    """Start measuring while the rank sandboxes start; `library_seconds` then waits for it (or reuses it)."""
    thread = threading.Thread(target=lambda: _quiet(library_seconds, world_size, sizes), daemon=True)
    thread.start()
    return thread


def _quiet(function, *args) -> None:
    try:
        function(*args)
    except Exception:
        pass
