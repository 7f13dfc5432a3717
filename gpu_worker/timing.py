"""Timing a call the plain way: warm it up, time each repeat (waiting for the GPU), keep the median; and the
boards' way: batches of timed rounds, taken again while their spread is too wide (`steadiest_batch`).

Timing across ranks is its own method (gpu_worker/collectives/bandwidth.py: barriers, the slowest rank)."""

import math
import statistics
import time
from collections.abc import Callable
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


def spread(rounds: list[float]) -> float:
    """(slowest - fastest) / median: 0.1 means the rounds lie within 10% of their median."""
    middle = statistics.median(rounds)
    return (max(rounds) - min(rounds)) / middle if middle > 0 else math.inf


def steadiest_batch(
    take_batch: Callable[[], list], *, retimes: int, limit: float, key=lambda item: item, may_retime=lambda: True
) -> tuple[list, int]:
    """A batch of timed rounds from `take_batch()`, taken again (at most `retimes` times, while `may_retime()`)
    while the spread of its rounds' `key` figures is wider than `limit`: the narrowest batch, and how many
    batches were taken again."""
    batches = [take_batch()]
    while len(batches) <= retimes and spread([key(item) for item in batches[-1]]) > limit and may_retime():
        batches.append(take_batch())
    return min(batches, key=lambda batch: spread([key(item) for item in batch])), len(batches) - 1
