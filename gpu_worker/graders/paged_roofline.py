"""`paged-attention`: place the learner's timed kernel, and the torch reference, on the device's roofline.

Decode attention reads every cached K and V byte once and does two multiply-adds per byte pair and query
head, so its arithmetic intensity is fixed by the shape (2 x query heads per KV head / bytes per element):
far left of the ridge, so the memory roof is the bound that matters and the share of peak bandwidth says
how close a kernel gets.
"""

import math
import os

from gpu_worker.engine.peaks import device_peaks
from gpu_worker.graders.cases import figure

TITLE = "Your kernel on the roofline"


def decode_traffic(
    *, num_seqs: int, num_kv_heads: int, group: int, head_dim: int, context_len: int, element_bytes: int
) -> tuple[int, int]:
    """(unique KV bytes read, FLOPs) for one decode step: K and V once each; q.k and p.v per query head
    and token, 2 FLOPs per multiply-add (softmax's few FLOPs per token are left out, as is usual)."""
    tokens = num_seqs * context_len
    kv_bytes = 2 * tokens * num_kv_heads * head_dim * element_bytes
    flops = 2 * 2 * tokens * num_kv_heads * group * head_dim
    return kv_bytes, flops


def add_roofline(report, *, case, element_bytes: int, dev: str, yours_ms, reference_ms) -> None:
    """Metrics and the figure, or nothing when the timing or the peaks are missing; never raises,
    since the grade must not depend on a plot."""
    try:
        if not (_positive(yours_ms) and _positive(reference_ms)):
            return
        peaks = device_peaks(dev)
        if not peaks or not _positive(peaks["gbps"]):
            return
        kv_bytes, flops = decode_traffic(
            num_seqs=case.num_seqs,
            num_kv_heads=case.num_kv_heads,
            group=case.group,
            head_dim=case.head_dim,
            context_len=max(case.context_lens),
            element_bytes=element_bytes,
        )
        intensity = flops / kv_bytes
        achieved = kv_bytes / (yours_ms / 1e3) / 1e9
        report.metrics.update(
            {
                "achieved_gbps": _figures(achieved),
                "peak_gbps": _figures(peaks["gbps"]),
                "bandwidth_share": _figures(achieved / peaks["gbps"]),
                "arithmetic_intensity": _figures(intensity),
                "peak_source": peaks["source"],
                "reference_gbps": _figures(kv_bytes / (reference_ms / 1e3) / 1e9),
            }
        )
        _flag_above_peak(report, achieved, peaks)
        if _positive(peaks["gflops"]):
            report.metrics["peak_gflops"] = _figures(peaks["gflops"])
        report.plots.append(_figure(peaks, intensity, flops, yours_ms, reference_ms))
    except Exception:
        for key in (
            "achieved_gbps",
            "peak_gbps",
            "bandwidth_share",
            "arithmetic_intensity",
            "peak_source",
            "reference_gbps",
            "peak_gflops",
        ):
            report.metrics.pop(key, None)
        report.plots[:] = [plot for plot in report.plots if plot.get("title") != TITLE]


def bandwidth_ceiling(peaks: dict) -> float:
    """The bandwidth no honest kernel can pass: the data sheet's peak; on a CPU, the one-thread measurement
    times the cores (learner code may start threads of its own)."""
    if peaks["source"] == "measured":
        return peaks["gbps"] * max(1, os.cpu_count() or 1)
    return peaks["gbps"]


def _flag_above_peak(report, achieved: float, peaks: dict) -> None:
    """A figure above the ceiling is flagged and never ranked: the timing was fooled, whatever the kernel did."""
    ceiling = bandwidth_ceiling(peaks)
    if achieved > ceiling:
        report.metrics["above_peak"] = True
        report.metrics["timing_note"] = (
            f"not ranked: {_figures(achieved):g} GB/s is above what this device can read ({_figures(ceiling):g} GB/s)"
        )


def _figures(value: float) -> float:
    """Four significant figures: a CPU's 0.4 GB/s keeps its precision as well as a GPU's 3000 GB/s."""
    return float(f"{value:.4g}")


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _figure(peaks: dict, intensity: float, flops: int, yours_ms: float, reference_ms: float) -> dict:
    gbps, gflops = peaks["gbps"], peaks["gflops"]
    yours, reference = flops / yours_ms / 1e6, flops / reference_ms / 1e6  # GFLOP/s
    ridge = gflops / gbps if _positive(gflops) else None
    left, right = intensity / 8, max(ridge * 8 if ridge else 0, intensity * 64)
    if ridge:
        roof_x, roof_y = [left, ridge, right], [gbps * left, gflops, gflops]
    else:
        roof_x, roof_y = [left, right], [gbps * left, gbps * right]
    source = "measured, one thread" if peaks["source"] == "measured" else "data sheet"
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"roof: {gbps:.0f} GB/s" + (f", {gflops:.0f} GFLOP/s" if ridge else "") + f" ({source})",
            "x": roof_x,
            "y": roof_y,
            "line": {"color": "#888"},
        },
        _point("yours", intensity, yours, "circle", yours_ms, "middle left"),
        _point("torch reference", intensity, reference, "diamond", reference_ms, "middle right"),
    ]
    fig = figure(TITLE, traces, "arithmetic intensity (FLOP / byte of KV read)", "performance (GFLOP/s)")
    layout = fig["figure"]["layout"]
    layout["xaxis"]["type"] = layout["yaxis"]["type"] = "log"
    return fig


def _point(name: str, x: float, y: float, symbol: str, ms: float, side: str) -> dict:
    return {
        "type": "scatter",
        "mode": "markers+text",
        "name": name,
        "x": [x],
        "y": [y],
        "text": [name],
        "textposition": side,
        "marker": {"size": 11, "symbol": symbol},
        "hovertemplate": f"{name}: %{{y:.3g}} GFLOP/s at %{{x:.3g}} FLOP/byte, {ms:.3g} ms<extra></extra>",
    }
