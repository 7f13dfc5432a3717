"""`python -m gpu_worker.bench collectives` end to end on 2 ranks and tiny sizes: the JSON has
nccl-tests rows for ours and the library's, zero wrong elements, the fit, and an HTML page
that loads plotly from the local path given (no CDN)."""

import json

from gpu_worker.bench.collectives import main
from gpu_worker.collectives.suite import SUITE


def test_report_runs_and_writes_json_and_html(tmp_path, capsys):
    out, plotly = tmp_path / "coll.json", tmp_path / "vendor" / "plotly.min.js"
    status = main(
        [
            "--out",
            str(out),
            "--world-size",
            "2",
            "--min-bytes",
            "4",
            "--max-bytes",
            "4096",
            "--factor",
            "32",
            "--target-seconds",
            "0.003",
            "--rounds",
            "1",
            "--plotly-js",
            str(plotly),
        ]
    )
    assert status == 0
    report = json.loads(out.read_text())
    rows = report["rows"]
    assert report["columns"] == ["size", "count", "type", "time(us)", "algbw", "busbw", "#wrong"]
    assert {(r["collective"], r["impl"]) for r in rows} >= {
        ("all_reduce", "ring"),
        ("all_reduce", "tree"),
        ("all_reduce", "library"),
        ("reduce_scatter", "library"),
        ("all_gather", "ring"),
        ("broadcast", "chain"),
        ("reduce", "binomial"),
        ("all_to_all", "pairwise"),
    }
    assert len(rows) == 3 * (len(SUITE) + 6)  # 3 sizes, 9 of ours, 6 library families
    assert all(r["#wrong"] == 0 and r["time(us)"] > 0 and r["busbw"] >= 0 for r in rows)
    assert report["bus_factors"]["all_reduce"]["value"] == 1.0
    assert report["average_busbw"]["ours"] > 0 and report["average_busbw"]["library"] > 0
    assert set(report["alpha_beta"]) >= {"ring", "tree", "crossover_bytes_model", "crossover_bytes_measured"}
    assert report["figures"] and all("data" in f["figure"] for f in report["figures"])
    page = (tmp_path / "coll.html").read_text()
    assert '<script src="vendor/plotly.min.js"></script>' in page
    assert "http" not in page and "Plotly.newPlot" in page
    assert "busbw" in page and "#wrong" in page  # the measurement table
    printed = capsys.readouterr().out
    assert "# Avg bus bandwidth" in printed and "tree stops beating ring" in printed
