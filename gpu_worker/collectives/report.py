"""Turns sweep rows into the report: averages, the targets, the alpha-beta fit, plotly figure
dicts and an nccl-tests style text table (gpu_worker/bench/report.py writes the HTML page)."""

from __future__ import annotations

from gpu_worker.collectives import alpha_beta
from gpu_worker.collectives.bandwidth import BUS_FACTOR_FORMULAS, bus_factor
from gpu_worker.collectives.sweep import LIBRARY

COLUMNS = ("size", "count", "type", "time(us)", "algbw", "busbw", "#wrong")
LARGE_BYTES = 16 * 1024 * 1024
SMALL_BYTES = 4 * 1024


def _series(rows: list[dict], family: str, implementation: str) -> list[dict]:
    return sorted(
        (r for r in rows if r["collective"] == family and r["impl"] == implementation), key=lambda r: r["size"]
    )


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(rows: list[dict], world_size: int) -> dict:
    """Average busbw (ours vs library), the two targets and the alpha-beta fit."""
    ours = [r for r in rows if r["impl"] != LIBRARY]
    library = [r for r in rows if r["impl"] == LIBRARY]
    summary = {
        "bus_factors": {
            family: {"formula": formula, "value": bus_factor(family, world_size)}
            for family, formula in BUS_FACTOR_FORMULAS.items()
        },
        "average_busbw": {"ours": _mean([r["busbw"] for r in ours]), "library": _mean([r["busbw"] for r in library])},
        "average_busbw_by_impl": {
            f"{family}/{impl}": _mean([r["busbw"] for r in _series(rows, family, impl)])
            for family, impl in dict.fromkeys((r["collective"], r["impl"]) for r in rows)
        },
        "wrong_total": sum(r["#wrong"] for r in rows),
    }
    ring, tree, lib = (_series(rows, "all_reduce", name) for name in ("ring", "tree", LIBRARY))
    lib_by_size = {r["size"]: r for r in lib}
    large = [
        {
            "size": r["size"],
            "ring_busbw": r["busbw"],
            "library_busbw": lib_by_size[r["size"]]["busbw"],
            "ratio": r["busbw"] / lib_by_size[r["size"]]["busbw"],
        }
        for r in ring
        if r["size"] >= LARGE_BYTES and r["size"] in lib_by_size
    ]
    tree_by_size = {r["size"]: r for r in tree}
    small = [
        {"size": r["size"], "ring_us": r["time(us)"], "tree_us": tree_by_size[r["size"]]["time(us)"]}
        for r in ring
        if r["size"] <= SMALL_BYTES and r["size"] in tree_by_size
    ]
    summary["targets"] = {
        "ring_vs_library_busbw_at_16MB_and_above": large,
        "ring_vs_library_min_ratio": min((x["ratio"] for x in large), default=None),
        "ring_meets_0.8x": bool(large) and all(x["ratio"] >= 0.8 for x in large),
        "tree_vs_ring_at_4KB_and_below": small,
        "tree_beats_ring_at_4KB_and_below": bool(small) and all(x["tree_us"] < x["ring_us"] for x in small),
    }
    if len(ring) >= 2 and len(tree) >= 2:
        summary["alpha_beta"] = _alpha_beta(ring, tree, world_size)
    return summary


def _alpha_beta(ring: list[dict], tree: list[dict], world_size: int) -> dict:
    fitted, result = {}, {}
    for name, series in (("ring", ring), ("tree", tree)):
        hops, volume = alpha_beta.TERMS[name](world_size)
        sizes, seconds = [r["size"] for r in series], [r["time(us)"] / 1e6 for r in series]
        alpha, beta = alpha_beta.fit(sizes, seconds, hops, volume)
        fitted[name] = (alpha, beta)
        result[name] = {
            "hops": hops,
            "bytes_per_message_byte": volume,
            "alpha_us_per_hop": alpha * 1e6,
            "beta_s_per_byte": beta,
            "beta_bandwidth_GBps": (1 / beta / 1e9) if beta > 0 else None,
            "predicted_vs_measured": [
                {
                    "size": size,
                    "measured_us": measured * 1e6,
                    "predicted_us": alpha_beta.predict(alpha, beta, hops, volume, size) * 1e6,
                }
                for size, measured in zip(sizes, seconds)
            ],
        }
    common = sorted({r["size"] for r in ring} & {r["size"] for r in tree})
    ring_t = {r["size"]: r["time(us)"] for r in ring}
    tree_t = {r["size"]: r["time(us)"] for r in tree}
    result["crossover_bytes_model"] = alpha_beta.model_crossover(fitted["ring"], fitted["tree"], world_size)
    result["crossover_bytes_measured"] = alpha_beta.measured_crossover(
        common, [ring_t[s] for s in common], [tree_t[s] for s in common]
    )
    return result


def figures(rows: list[dict], summary: dict) -> list[dict]:
    """Plotly figure dicts: busbw against size per collective, and all-reduce time with the
    alpha-beta curves for ring and tree."""
    log_axes = {"xaxis": {"type": "log", "title": "message size (bytes)"}}
    result = []
    for family in dict.fromkeys(r["collective"] for r in rows):
        traces = [
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": implementation,
                "x": [r["size"] for r in series],
                "y": [r["busbw"] for r in series],
            }
            for implementation in dict.fromkeys(r["impl"] for r in rows if r["collective"] == family)
            for series in [_series(rows, family, implementation)]
        ]
        result.append(
            {
                "title": f"{family}: bus bandwidth",
                "figure": {
                    "data": traces,
                    "layout": {
                        "title": f"{family} busbw (GB/s) vs size",
                        **log_axes,
                        "yaxis": {"title": "busbw (GB/s)"},
                    },
                },
            }
        )
    model = summary.get("alpha_beta")
    if model:
        traces = []
        for name in ("ring", "tree"):
            points = model[name]["predicted_vs_measured"]
            sizes = [p["size"] for p in points]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": f"{name} measured",
                    "x": sizes,
                    "y": [p["measured_us"] for p in points],
                }
            )
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": f"{name} alpha-beta model",
                    "line": {"dash": "dash"},
                    "x": sizes,
                    "y": [p["predicted_us"] for p in points],
                }
            )
        library = _series(rows, "all_reduce", LIBRARY)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "library measured",
                "x": [r["size"] for r in library],
                "y": [r["time(us)"] for r in library],
            }
        )
        layout = {
            "title": "all-reduce time: measured and alpha-beta model",
            **log_axes,
            "yaxis": {"type": "log", "title": "time (us)"},
        }
        crossover = model.get("crossover_bytes_model")
        if crossover:
            layout["shapes"] = [
                {
                    "type": "line",
                    "x0": crossover,
                    "x1": crossover,
                    "yref": "paper",
                    "y0": 0,
                    "y1": 1,
                    "line": {"dash": "dot", "color": "gray"},
                }
            ]
        result.append({"title": "all-reduce: alpha-beta model", "figure": {"data": traces, "layout": layout}})
    return result


def text_table(rows: list[dict]) -> str:
    """nccl-tests style lines, grouped by collective and implementation."""
    lines = []
    for key in dict.fromkeys((r["collective"], r["impl"]) for r in rows):
        lines.append(f"# {key[0]} ({key[1]})")
        lines.append(f"{'size':>12} {'count':>10} {'type':>8} {'time(us)':>11} {'algbw':>8} {'busbw':>8} {'#wrong':>7}")
        for r in _series(rows, *key):
            lines.append(
                f"{r['size']:>12} {r['count']:>10} {r['type']:>8} {r['time(us)']:>11.1f} "
                f"{r['algbw']:>8.3f} {r['busbw']:>8.3f} {r['#wrong']:>7}"
            )
    return "\n".join(lines)
