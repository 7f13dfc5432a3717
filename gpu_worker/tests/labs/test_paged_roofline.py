"""paged-attention on the roofline: bytes and FLOPs of a decode step, the metrics and figure a graded
result carries, and no figure when there is no timing."""

import math

import pytest

from gpu_worker.graders.paged_attention import timing_case
from gpu_worker.graders.paged_roofline import TITLE, add_roofline, decode_traffic
from gpu_worker.graders.result import Report

ROOFLINE_METRICS = ("achieved_gbps", "peak_gbps", "bandwidth_share", "arithmetic_intensity")


def test_decode_step_bytes_and_flops_for_the_timed_shape():
    kv_bytes, flops = decode_traffic(
        num_seqs=4, num_kv_heads=2, group=4, head_dim=64, context_len=1024, element_bytes=4
    )
    assert kv_bytes == 2 * 4 * 1024 * 2 * 64 * 4 == 4_194_304  # K and V, every token, every KV head, fp32
    assert flops == 4 * 4 * 1024 * 8 * 64 == 8_388_608  # q.k and p.v: 2 multiply-adds per query head and dim
    assert flops / kv_bytes == 2.0  # 2 x group / bytes per element
    half_bytes, half_flops = decode_traffic(
        num_seqs=1, num_kv_heads=8, group=4, head_dim=128, context_len=4096, element_bytes=2
    )
    assert half_flops / half_bytes == 4.0  # fp16 halves the bytes, doubling the intensity


@pytest.mark.parametrize("yours_ms", [None, math.inf, 0.0, float("nan")])
def test_no_timing_means_no_roofline(yours_ms):
    report = Report("paged-attention", "run")
    add_roofline(report, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=yours_ms, reference_ms=1.0)
    assert report.plots == []
    assert not set(ROOFLINE_METRICS) & set(report.metrics)


def test_a_known_time_gives_its_bandwidth_and_a_log_log_figure():
    report = Report("paged-attention", "run")
    add_roofline(report, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=2.0, reference_ms=1.0)
    metrics = report.metrics
    assert metrics["achieved_gbps"] == 2.097  # 4 194 304 bytes in 2 ms
    assert metrics["reference_gbps"] == 4.194
    assert metrics["arithmetic_intensity"] == 2.0 and metrics["peak_source"] == "measured"
    assert metrics["bandwidth_share"] == pytest.approx(metrics["achieved_gbps"] / metrics["peak_gbps"], rel=1e-2)
    [plot] = report.plots
    assert plot["title"] == TITLE and "title" not in plot["figure"]["layout"]


@pytest.mark.sandbox
def test_graded_reference_sits_under_the_memory_roof(grade, fixture_source):
    result = grade("paged-attention", fixture_source("paged-attention", "reference"), mode="run")
    assert result["verdict"] == "accepted", result["message"]
    metrics = result["metrics"]
    for key in ROOFLINE_METRICS + ("reference_gbps", "peak_gflops"):
        assert math.isfinite(metrics[key]) and metrics[key] > 0, (key, metrics[key])
    assert metrics["peak_source"] == ("measured" if metrics["device"] == "cpu" else "datasheet")
    assert metrics["arithmetic_intensity"] == (2.0 if metrics["device"] == "cpu" else 4.0)
    kv_bytes = 4_194_304 if metrics["device"] == "cpu" else 2_097_152  # fp32 on CPU, fp16 on GPUs
    assert metrics["achieved_gbps"] == pytest.approx(kv_bytes / metrics["median_ms"] / 1e6, rel=1e-2)
    [plot] = [p for p in result["plots"] if p["title"] == TITLE]
    layout = plot["figure"]["layout"]
    assert layout["xaxis"]["type"] == layout["yaxis"]["type"] == "log" and "title" not in layout
    assert "FLOP / byte" in layout["xaxis"]["title"]["text"] and "GFLOP/s" in layout["yaxis"]["title"]["text"]
    roof, yours, reference = plot["figure"]["data"]
    assert [yours["name"], reference["name"]] == ["yours", "torch reference"]
    assert all(math.isfinite(v) and v > 0 for trace in (roof, yours, reference) for v in trace["x"] + trace["y"])
    peak_at_intensity = metrics["peak_gbps"] * metrics["arithmetic_intensity"]
    assert yours["y"][0] == pytest.approx(metrics["achieved_gbps"] * metrics["arithmetic_intensity"], rel=1e-3)
    assert yours["y"][0] < peak_at_intensity * 1.5  # under the roof, bar the noise of a shared host


def test_data_sheet_lookup_prefers_the_longest_model_name():
    from gpu_worker.contract.gpus import datasheet_for

    assert datasheet_for("NVIDIA H100 NVL").hbm_gbps == 3900 and datasheet_for("NVIDIA L40S").hbm_gbps == 864
    assert datasheet_for("NVIDIA A100-SXM4-80GB").fp16_tflops == 312
    assert datasheet_for("NVIDIA A10").fp16_tflops == 125
    assert datasheet_for("NVIDIA GH200 480GB").hbm_gbps == 4000  # not the H200's
    # an A100 not listed has its compute figure; its bandwidth comes from the memory clock, not the A10's
    assert datasheet_for("NVIDIA A100 96GB").hbm_gbps is None and datasheet_for("NVIDIA A100 96GB").fp16_tflops == 312
    assert datasheet_for("Some Future GPU") is None


def test_a_figure_above_the_device_ceiling_is_flagged_and_says_so():
    report = Report("paged-attention", "run")
    add_roofline(report, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=1e-5, reference_ms=1.0)
    assert report.metrics["above_peak"] is True  # 4 MiB in 10 ns: 419 TB/s
    assert report.metrics["timing_note"].startswith("not ranked: 419400 GB/s is above what this device can read")
    honest = Report("paged-attention", "run")
    add_roofline(honest, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=2.0, reference_ms=1.0)
    assert "above_peak" not in honest.metrics and "timing_note" not in honest.metrics
