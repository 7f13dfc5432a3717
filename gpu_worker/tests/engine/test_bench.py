"""The engine and attention benchmarks run end to end on a small workload and write what they promise."""

import importlib.util
import json

from gpu_worker.bench import attention as attention_bench
from gpu_worker.bench import engine as engine_bench


def test_engine_benchmark_writes_json_and_html(tmp_path, capsys):
    out = tmp_path / "engine.json"
    argv = [
        "--out",
        str(out),
        "--num-requests",
        "6",
        "--kv-tokens",
        "1024",
        "--max-model-len",
        "256",
        "--system-prompt-len",
        "32",
        "--shared-requests",
        "3",
        "--sample-tokens",
        "4",
        "--repeats",
        "2",
    ]
    assert engine_bench.main(argv) == 0
    result = json.loads(out.read_text())
    static, paged, prefix = result["systems"]
    assert static["system"].startswith("static") and static["throughput_ratio_to_static"] == 1.0
    assert static["kv_share_holding_tokens"] < paged["kv_share_holding_tokens"] <= 1
    assert paged["output_tokens"] == static["output_tokens"] == prefix["output_tokens"]
    assert [row["n"] for row in result["parallel_sampling"]] == [2, 4, 6]
    assert all(0 < row["kv_saved"] < 1 for row in result["parallel_sampling"])
    assert result["shared_system_prompt"]["hit_rate"] > 0
    assert {p["title"] for p in result["plots"]} and all("data" in p["figure"] for p in result["plots"])
    page = (tmp_path / "engine.html").read_text()
    assert "plotly.min.js" in page and "Plotly.newPlot" in page
    step_ratio = paged["output_tokens_per_step"] / static["output_tokens_per_step"]
    assert paged["share_of_step_ratio"] == paged["throughput_ratio_to_static"] / step_ratio
    printed = capsys.readouterr().out
    assert "x static" in printed
    hf = result["transformers_generate"]  # the baseline a user would pick: same weights, same requests
    if importlib.util.find_spec("transformers") is None:  # a GPU host's worker set need not carry it
        assert hf is None and "transformers generate: not run (not installed" in printed
    else:
        assert hf["output_tokens"] == paged["output_tokens"] and hf["throughput_tok_s"] > 0
        assert paged["throughput_ratio_to_transformers"] == paged["throughput_tok_s"] / hf["throughput_tok_s"]
        assert "x transformers generate" in printed
    assert "fastest of 2 rounds" in printed and "of the step ratio reaches tokens per second" in printed


def test_engine_profile_accounts_for_the_whole_step(tmp_path, capsys):
    from gpu_worker.bench import engine_profile

    out = tmp_path / "profile.json"
    argv = ["--out", str(out), "--num-requests", "4", "--kv-tokens", "1024", "--max-model-len", "256"]
    assert engine_profile.main(argv) == 0
    static, paged = json.loads(out.read_text())["rows"]
    for row in (static, paged):
        assert row["step_ms"] > 0 and row["parts_ms"]["attention: decode"] > 0
        assert abs(sum(row["parts_ms"].values()) - row["step_ms"]) < 1e-6 * max(1.0, row["step_ms"])
    assert paged["parts_ms"]["schedule"] > 0 and static["parts_ms"]["schedule"] == 0
    assert "of the step ratio" in capsys.readouterr().out


def test_attention_benchmark_reports_bandwidth_beside_sdpa(tmp_path):
    out = tmp_path / "attention.json"
    assert attention_bench.main(["--out", str(out), "--repeats", "2", "--small"]) == 0
    result = json.loads(out.read_text())
    # fp32 on CPU agrees to rounding; fp16 on CUDA keeps about three significant digits
    tolerance = 1e-4 if result["dtype"] == "torch.float32" else 2e-2
    cases = result["cases"]
    assert cases and all(c["paged_ms"] > 0 and c["dense_ms"] > 0 and c["sdpa_ms"] > 0 for c in cases)
    assert all(c["max_abs_diff_paged_dense"] < tolerance and c["max_abs_diff_sdpa_paged"] < tolerance for c in cases)
    for case in cases:
        assert case["paged_gbps"] == case["kv_bytes"] / (case["paged_ms"] / 1000) / 1e9
        assert case["sdpa_over_paged"] == case["sdpa_ms"] / case["paged_ms"]
        if result["device"].startswith("cuda"):
            assert case["max_abs_diff_triton_paged"] < tolerance and 0 < case["triton_share_of_peak"] < 1
