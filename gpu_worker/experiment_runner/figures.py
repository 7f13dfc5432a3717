"""Plotly figure dicts for one run: latency CDFs with the SLO marked, KV usage, queues and preemptions over time.

Layouts autosize and keep legends under the plot, so a figure reads on a 390 px phone.
"""

from .summary import percentile, request_latencies

MAX_POINTS = 400  # per series; the page stays light even for the longest allowed run


def _layout(title: str, x_title: str, y_title: str, **extra) -> dict:
    return {
        "title": {"text": title},
        "autosize": True,
        "height": 340,
        "margin": {"l": 55, "r": 15, "t": 45, "b": 45},
        "legend": {"orientation": "h", "y": -0.25},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
        **extra,
    }


def _cdf(values_ms: list[float]) -> tuple[list[float], list[float]]:
    """Every sample for a small run; past 101 samples, the percentiles 0..100 are enough to draw it."""
    if len(values_ms) <= 101:
        ordered = sorted(values_ms)
        return ordered, [(i + 1) / len(ordered) for i in range(len(ordered))]
    shares = [i / 100 for i in range(101)]
    return [percentile(values_ms, share * 100) for share in shares], shares


def _slo_line(x: float) -> dict:
    return {
        "type": "line",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "yref": "paper",
        "line": {"dash": "dash", "color": "#c0392b"},
    }


def _cdf_figure(title: str, values_ms: list[float], slo_ms: float) -> dict:
    x, y = _cdf(values_ms)
    return {
        "data": [{"type": "scatter", "mode": "lines", "line": {"shape": "hv"}, "name": title, "x": x, "y": y}],
        "layout": _layout(
            title,
            "milliseconds (dashed: SLO target)",
            "share of samples at or below",
            shapes=[_slo_line(slo_ms)],
            showlegend=False,
        ),
    }


def _thin(samples: list[dict]) -> list[dict]:
    stride = max(1, -(-len(samples) // MAX_POINTS))
    return samples[::stride] + ([samples[-1]] if (len(samples) - 1) % stride else [])


def _series(name: str, x: list, y: list, **extra) -> dict:
    return {"type": "scatter", "mode": "lines", "name": name, "x": x, "y": y, **extra}


def figures(knobs: dict, seqs: list, samples: list[dict], num_blocks: int) -> list[dict]:
    latencies = [request_latencies(seq) for seq in seqs]
    cumulative, total = [], 0
    for sample in samples:
        total += sample["preemptions"]
        cumulative.append(total)
    thinned = _thin([{**s, "preempted_so_far": c} for s, c in zip(samples, cumulative)])
    t = [round(s["t"], 4) for s in thinned]
    return [
        {
            "title": "Time to first token",
            "figure": _cdf_figure(
                "Time to first token (CDF)", [latency["ttft_s"] * 1000 for latency in latencies], knobs["slo_ttft_ms"]
            ),
        },
        {
            "title": "Inter-token latency",
            "figure": _cdf_figure(
                "Inter-token latency (CDF)",
                [gap * 1000 for latency in latencies for gap in latency["itl_s"]],
                knobs["slo_itl_ms"],
            ),
        },
        {
            "title": "KV cache usage",
            "figure": {
                "data": [
                    _series("KV blocks in use", t, [s["kv_blocks_used"] / num_blocks for s in thinned], fill="tozeroy")
                ],
                "layout": _layout(
                    "KV cache usage over time",
                    "seconds",
                    "share of KV blocks",
                    yaxis={"range": [0, 1.05], "title": {"text": "share of KV blocks"}},
                ),
            },
        },
        {
            "title": "Queues and preemptions",
            "figure": {
                "data": [
                    _series("running", t, [s["running"] for s in thinned]),
                    _series("waiting", t, [s["waiting"] for s in thinned]),
                    _series("preemptions so far", t, [s["preempted_so_far"] for s in thinned], line={"dash": "dot"}),
                ],
                "layout": _layout("Queues and preemptions over time", "seconds", "requests"),
            },
        },
        {
            "title": "Tokens per step",
            "figure": {
                "data": [
                    _series("prefill tokens", t, [s["prefill_tokens"] for s in thinned]),
                    _series("decode tokens", t, [s["tokens"] - s["prefill_tokens"] for s in thinned]),
                ],
                "layout": _layout("Tokens per step", "seconds", "tokens (their sum is capped)"),
            },
        },
    ]
