"""The device's roofs: peak memory bandwidth and peak compute, for placing a kernel on its roofline.

GPUs: vendor data-sheet figures by model name, from gpu_worker/contract/gpus.py (a measurement on a
shared GPU would vary run to run).
CPU hosts have no data sheet we can trust, so the grader measures one thread (the sandbox runs learner
code with one thread): a stream-like copy for bandwidth and a small matmul for compute, once per process.
"""

import functools
import time

import torch

from gpu_worker.contract.gpus import datasheet_for

COPY_BYTES = 64 * 2**20
MATMUL_SIZE = 512


def hbm_peak_gbps(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    sheet = datasheet_for(torch.cuda.get_device_name(device))
    if sheet is not None and sheet.hbm_gbps is not None:
        return float(sheet.hbm_gbps)
    # a model the data sheets do not list: DDR moves two transfers a clock over the bus
    props = torch.cuda.get_device_properties(device)
    clock_khz, bus_bits = getattr(props, "memory_clock_rate", 0), getattr(props, "memory_bus_width", 0)
    return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9 if clock_khz and bus_bits else None


def _best_seconds(fn, rounds: int) -> float:
    fn()  # first touch: page faults are not bandwidth
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


@functools.cache
def measured_cpu_peaks() -> tuple[float, float]:
    """(GB/s, GFLOP/s) on one thread: a 64 MiB copy (read + write counted, as STREAM does) and a fp32 matmul,
    best of three each. About 0.1 s, once per worker process."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        source = torch.ones(COPY_BYTES // 4)
        target = torch.empty_like(source)
        gbps = 2 * COPY_BYTES / _best_seconds(lambda: target.copy_(source), 3) / 1e9
        a = torch.randn(MATMUL_SIZE, MATMUL_SIZE)
        gflops = 2 * MATMUL_SIZE**3 / _best_seconds(lambda: a @ a, 3) / 1e9
    finally:
        torch.set_num_threads(threads)
    return gbps, gflops


def device_peaks(dev: str) -> dict | None:
    """{"gbps", "gflops" (None when unknown), "source": "measured" | "datasheet"}; None without a bandwidth."""
    if dev == "cpu":
        gbps, gflops = measured_cpu_peaks()
        return {"gbps": gbps, "gflops": gflops, "source": "measured"}
    device = torch.device(dev)
    gbps = hbm_peak_gbps(device)
    if gbps is None:
        return None
    sheet = datasheet_for(torch.cuda.get_device_name(device))
    tflops = float(sheet.fp16_tflops) if sheet and sheet.fp16_tflops else None  # the grader times fp16 on GPUs
    return {"gbps": gbps, "gflops": tflops * 1e3 if tflops else None, "source": "datasheet"}
