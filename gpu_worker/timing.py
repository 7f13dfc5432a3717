"""Timing a call the plain way: warm it up, time each repeat (waiting for the GPU), keep the median.

Timing across ranks is its own method (gpu_worker/collectives/bandwidth.py: barriers, the slowest rank)."""

import statistics
import time
from contextlib import contextmanager

import torch


def call_seconds(fn, *, warmup: int, repeats: int, device: str = "cpu") -> list[float]:
    """Seconds of each of `repeats` calls of fn() after `warmup` untimed ones; on CUDA each waits for the GPU."""
    times = []
    for index in range(warmup + repeats):
        started = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        if index >= warmup:
            times.append(time.perf_counter() - started)
    return times


def median_ms(times: list[float], digits: int | None = None) -> float:
    """The median of `times` (seconds) in milliseconds, rounded to `digits` when given."""
    value = statistics.median(times) * 1e3
    return value if digits is None else round(value, digits)


@contextmanager
def torch_threads(count: int | None = None):
    """Run the block with torch on `count` threads (None: as it is), then put the caller's setting back."""
    before = torch.get_num_threads()
    if count is not None:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)
