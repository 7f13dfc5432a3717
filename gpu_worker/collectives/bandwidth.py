"""Timing a collective across ranks and turning the time into nccl-tests' algbw and busbw.

busbw = algbw * factor, where the factor makes every collective comparable to the link
speed: all-reduce 2(n-1)/n; reduce-scatter, all-gather, all-to-all (n-1)/n; broadcast and
reduce 1. `size` is the whole tensor in bytes (for reduce-scatter / all-gather the full
buffer, N blocks)."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable

BUS_FACTOR_FORMULAS = {
    "all_reduce": "2(n-1)/n",
    "reduce_scatter": "(n-1)/n",
    "all_gather": "(n-1)/n",
    "all_to_all": "(n-1)/n",
    "broadcast": "1",
    "reduce": "1",
}


def bus_factor(family: str, world_size: int) -> float:
    """nccl-tests' factor from algorithm bandwidth to bus bandwidth."""
    n = world_size
    factors = {
        "all_reduce": 2 * (n - 1) / n,
        "reduce_scatter": (n - 1) / n,
        "all_gather": (n - 1) / n,
        "all_to_all": (n - 1) / n,
        "broadcast": 1.0,
        "reduce": 1.0,
    }
    if family not in factors:
        raise ValueError(f"family must be one of {sorted(factors)}, got {family!r}")
    return factors[family]


def textbook_bytes_sent(family: str, numel: int, element_size: int, world_size: int) -> float | None:
    """Bytes one rank sends in the bandwidth-optimal algorithm (None where it depends on the rank)."""
    n, total = world_size, numel * element_size
    volumes = {
        "all_reduce": 2 * (n - 1) / n * total,
        "reduce_scatter": (n - 1) / n * total,
        "all_gather": (n - 1) / n * total,
        "all_to_all": (n - 1) / n * total,
    }
    return volumes.get(family)


def algbw_gbps(size_bytes: int, seconds: float) -> float:
    """Algorithm bandwidth in GB/s (1e9 bytes), as nccl-tests prints it."""
    return size_bytes / seconds / 1e9 if seconds > 0 else float("inf")


def busbw_gbps(family: str, size_bytes: int, seconds: float, world_size: int) -> float:
    return algbw_gbps(size_bytes, seconds) * bus_factor(family, world_size)


def message_sizes(min_bytes: int, max_bytes: int, factor: int = 4) -> list[int]:
    """min_bytes, min_bytes*factor, ... up to max_bytes (both ends included when reached)."""
    if min_bytes < 1 or max_bytes < min_bytes or factor < 2:
        raise ValueError(f"need 1 <= min_bytes <= max_bytes and factor >= 2, got {min_bytes}, {max_bytes}, {factor}")
    sizes, size = [], min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size *= factor
    return sizes


def time_calls(
    runs: dict[str, Callable[[], object]],
    comm,
    target_seconds: float = 0.1,
    min_iters: int = 1,
    max_iters: int = 1000,
    warmup: int = 1,
    rounds: int = 3,
) -> dict[str, float]:
    """Seconds per call of each run (each a collective every rank calls): the median over
    `rounds` rounds of the slowest rank's mean time per call.

    Each run is warmed up and timed once to choose its iteration count (the same on every
    rank: the slowest rank's). Then the rounds go A, B, C, A, B, C, ..., each between
    barriers, so a busy spell on a shared host hits every implementation alike, and the
    median keeps one descheduled round from deciding a figure. Every rank must call this
    with the same runs in the same order."""
    if rounds < 1 or min_iters < 1:
        raise ValueError(f"rounds and min_iters must be >= 1, got {rounds}, {min_iters}")
    iters = {}
    for name, run in runs.items():
        for _ in range(warmup):
            run()
        comm.synchronize()
        comm.barrier()
        started = time.perf_counter()
        run()
        comm.synchronize()
        single = comm.max_over_ranks(time.perf_counter() - started)
        iters[name] = max(min_iters, min(max_iters, math.ceil(target_seconds / rounds / max(single, 1e-9))))
    per_round = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            comm.barrier()
            started = time.perf_counter()
            for _ in range(iters[name]):
                run()
            comm.synchronize()
            per_round[name].append(comm.max_over_ranks((time.perf_counter() - started) / iters[name]))
    return {name: statistics.median(times) for name, times in per_round.items()}


def time_call(run: Callable[[], object], comm, **options) -> float:
    """Seconds per call of one collective (see `time_calls` for the method and options)."""
    return time_calls({"run": run}, comm, **options)["run"]


def bandwidth_row(
    family: str,
    implementation: str,
    size_bytes: int,
    count: int,
    dtype_name: str,
    seconds: float,
    world_size: int,
    wrong: int,
) -> dict:
    """One nccl-tests style line: size, count, type, time(us), algbw, busbw, #wrong."""
    return {
        "collective": family,
        "impl": implementation,
        "size": size_bytes,
        "count": count,
        "type": dtype_name,
        "time(us)": seconds * 1e6,
        "algbw": algbw_gbps(size_bytes, seconds),
        "busbw": busbw_gbps(family, size_bytes, seconds, world_size),
        "#wrong": wrong,
    }
