"""The device's roofs: peak memory bandwidth and peak compute, for placing a kernel on its roofline.

GPUs: vendor data-sheet figures by model name (a measurement on a shared GPU would vary run to run).
CPU hosts have no data sheet we can trust, so the grader measures one thread (the sandbox runs learner
code with one thread): a stream-like copy for bandwidth and a small matmul for compute, once per process.
"""

import functools
import time

import torch

# HBM peak in GB/s by device name (vendor data sheets); anything else is estimated from the memory clock.
HBM_PEAK_GBPS = {
    "H200": 4800,
    "H100 SXM": 3350,
    "H100 80GB HBM3": 3350,
    "H100 PCIe": 2000,
    "H100 NVL": 3900,
    "A100-SXM4-80GB": 2039,
    "A100 80GB PCIe": 1935,
    "A100-SXM4-40GB": 1555,
    "A100-PCIE-40GB": 1555,
    "L40S": 864,
    "L4": 300,
    "A10": 600,
    "RTX 4090": 1008,
    "GH200": 4000,
    "B200": 8000,
}
# Dense fp16 tensor-core peak in TFLOP/s (data sheets, without sparsity); the grader times fp16 on GPUs.
FP16_PEAK_TFLOPS = {
    "H200": 989,
    "H100 SXM": 989,
    "H100 80GB HBM3": 989,
    "H100 PCIe": 756,
    "H100 NVL": 835,
    "A100": 312,
    "L40S": 362,
    "L4": 121,
    "A10": 125,
    "RTX 4090": 165,
    "GH200": 989,
    "B200": 2250,
}
COPY_BYTES = 64 * 2**20
MATMUL_SIZE = 512


def _by_name(table: dict, name: str) -> float | None:
    for key, peak in sorted(table.items(), key=lambda item: -len(item[0])):  # "H100 NVL" before "H100"
        if key in name:
            return float(peak)
    return None


def hbm_peak_gbps(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    peak = _by_name(HBM_PEAK_GBPS, torch.cuda.get_device_name(device))
    if peak is not None:
        return peak
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
    tflops = _by_name(FP16_PEAK_TFLOPS, torch.cuda.get_device_name(device))
    return {"gbps": gbps, "gflops": tflops * 1e3 if tflops else None, "source": "datasheet"}
