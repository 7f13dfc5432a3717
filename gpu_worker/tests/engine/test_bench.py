"""The engine and attention benchmarks run end to end on a small workload and write what they promise."""
import json

from gpu_worker.bench import engine as engine_bench
from gpu_worker.bench import attention as attention_bench


def test_engine_benchmark_writes_json_and_html(tmp_path, capsys):
    out = tmp_path / "engine.json"
    argv = ["--out", str(out), "--num-requests", "6", "--kv-tokens", "1024", "--max-model-len", "256",
            "--system-prompt-len", "32", "--shared-requests", "3", "--sample-tokens", "4"]
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
    assert "x static" in capsys.readouterr().out


def test_attention_benchmark_reports_medians_and_ratio(tmp_path):
    out = tmp_path / "attention.json"
    assert attention_bench.main(["--out", str(out), "--repeats", "2"]) == 0
    cases = json.loads(out.read_text())["cases"]
    assert cases and all(c["paged_ms"] > 0 and c["dense_ms"] > 0 and c["max_abs_diff_paged_dense"] < 1e-4 for c in cases)
