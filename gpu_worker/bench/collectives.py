"""`python -m gpu_worker.bench collectives --out coll.json`: nccl-tests style report of our
collectives against the library's in the same run, the alpha-beta fit, and an HTML page."""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from gpu_worker.bench.report import REPO_ROOT, write_html
from gpu_worker.collectives import report
from gpu_worker.collectives.bandwidth import message_sizes
from gpu_worker.collectives.launcher import launch, pick_backend
from gpu_worker.collectives.suite import SUITE
from gpu_worker.collectives.sweep import sweep

DEFAULT_PLOTLY = REPO_ROOT / "static" / "vendor" / "plotly.min.js"


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.bench collectives", description=__doc__)
    parser.add_argument("--out", required=True, help="JSON report path")
    parser.add_argument("--html", help="HTML report path (default: --out with .html)")
    parser.add_argument(
        "--plotly-js",
        default=str(DEFAULT_PLOTLY),
        help="local plotly.min.js the HTML loads (default: static/vendor/plotly.min.js in the repo)",
    )
    parser.add_argument("--world-size", type=int, default=4)
    parser.add_argument("--min-bytes", type=int, default=4)
    parser.add_argument("--max-bytes", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--factor", type=int, default=4, help="size step between messages")
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "int64"))
    parser.add_argument("--collectives", default=",".join(SUITE), help=f"comma list from {','.join(SUITE)}")
    parser.add_argument("--target-seconds", type=float, default=0.25, help="timing budget per point and implementation")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds; the median is reported")
    parser.add_argument("--backend", choices=("gloo", "nccl"), help="default: nccl with a GPU per rank, else gloo")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    if args.world_size < 2:
        parser.error("--world-size must be at least 2")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv: list[str]) -> int:
    args = _parse(argv)
    names = [name.strip() for name in args.collectives.split(",") if name.strip()]
    sizes = message_sizes(args.min_bytes, args.max_bytes, args.factor)
    backend = args.backend or pick_backend(args.world_size)
    started = time.perf_counter()
    per_rank = launch(
        sweep,
        args.world_size,
        args=(names, sizes, args.dtype, args.target_seconds, args.rounds),
        timeout=args.timeout,
        backend=backend,
    )
    rows = per_rank[0]
    for other in per_rank[1:]:  # times are already the slowest rank's; wrong counts add up
        for row, theirs in zip(rows, other):
            row["#wrong"] += theirs["#wrong"]
    summary = report.summarize(rows, args.world_size)
    figure_list = report.figures(rows, summary)
    result = {
        "benchmark": "collectives",
        "backend": backend,
        "device": "cuda" if backend == "nccl" else "cpu",
        "world_size": args.world_size,
        "dtype": args.dtype,
        "torch": torch.__version__,
        "host": platform.node(),
        "seconds": round(time.perf_counter() - started, 1),
        "columns": list(report.COLUMNS),
        "rows": rows,
        **summary,
        "figures": figure_list,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    html_path = Path(args.html) if args.html else out.with_suffix(".html")
    plotly = Path(args.plotly_js).resolve()
    if not plotly.exists():
        print(f"warning: {plotly} does not exist; the HTML report needs a local plotly.min.js there", file=sys.stderr)
    notes = _closing_lines(summary, args.world_size, backend)
    table = report.text_table(rows)
    write_html(html_path, f"Collectives, {args.world_size} ranks, {backend}", figure_list, notes, plotly, table)
    print(table)
    print()
    print("\n".join(notes))
    print(f"wrote {out} and {html_path} in {result['seconds']} s")
    return 1 if summary["wrong_total"] else 0


def _fmt_bytes(size: float | None) -> str:
    if size is None:
        return "none"
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size:.0f} B"


def _closing_lines(summary: dict, world_size: int, backend: str) -> list[str]:
    average = summary["average_busbw"]
    lines = [
        f"# Avg bus bandwidth: ours {average['ours']:.3f} GB/s, library {average['library']:.3f} GB/s, "
        f"ratio {average['ours'] / average['library']:.2f} ({world_size} ranks, {backend})",
        "# bus factors: "
        + ", ".join(f"{k} {v['formula']}={v['value']:.3f}" for k, v in summary["bus_factors"].items()),
        f"# #wrong total: {summary['wrong_total']}",
    ]
    targets = summary["targets"]
    for point in targets["ring_vs_library_busbw_at_16MB_and_above"]:
        lines.append(
            f"# ring all-reduce at {_fmt_bytes(point['size'])}: busbw {point['ring_busbw']:.3f} vs "
            f"library {point['library_busbw']:.3f} GB/s = {point['ratio']:.2f}x (target >= 0.8x)"
        )
    for point in targets["tree_vs_ring_at_4KB_and_below"]:
        lines.append(
            f"# all-reduce at {_fmt_bytes(point['size'])}: tree {point['tree_us']:.1f} us, "
            f"ring {point['ring_us']:.1f} us"
        )
    lines.append(
        f"# tree beats ring at <= 4 KB: {targets['tree_beats_ring_at_4KB_and_below']}; "
        f"ring >= 0.8x library at >= 16 MB: {targets['ring_meets_0.8x']}"
    )
    model = summary.get("alpha_beta")
    if model:
        for name in ("ring", "tree"):
            fit = model[name]
            bandwidth = f"{fit['beta_bandwidth_GBps']:.2f} GB/s" if fit["beta_bandwidth_GBps"] else "inf"
            lines.append(
                f"# alpha-beta {name}: alpha {fit['alpha_us_per_hop']:.1f} us/hop x {fit['hops']} hops, "
                f"beta {fit['beta_s_per_byte']:.3e} s/B (1/beta {bandwidth}) "
                f"x {fit['bytes_per_message_byte']:.2f} K"
            )
            lines.append(
                f"#   {name} predicted/measured us: "
                + ", ".join(
                    f"{_fmt_bytes(p['size'])} {p['predicted_us']:.0f}/{p['measured_us']:.0f}"
                    for p in fit["predicted_vs_measured"]
                )
            )
        lines.append(
            f"# tree stops beating ring at: model {_fmt_bytes(model['crossover_bytes_model'])}, "
            f"measured {_fmt_bytes(model['crossover_bytes_measured'])}"
        )
    return lines
