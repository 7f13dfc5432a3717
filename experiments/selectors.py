"""Reads for experiments: a learner's own runs, and the view of one result that the pages show."""

from django.db.models import QuerySet

from experiments.models import Experiment


def experiment_list(*, owner) -> QuerySet[Experiment]:
    return Experiment.objects.filter(owner=owner).only(
        "pk", "owner_id", "config", "status", "preset", "from_cache", "created"
    )


def experiment_for(*, owner, experiment_id) -> Experiment | None:
    """The owner's experiment, or None: nobody else's runs are visible, not even by guessing ids.
    Ids come from URLs, so anything that is not a plausible id is simply not found."""
    text = str(experiment_id)
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        return None
    return Experiment.objects.filter(owner=owner, pk=int(text)).first()


def experiments_ahead_of(experiment: Experiment) -> int:
    """How many experiments still waiting were sent before this one (the worker serves the queue in order)."""
    return Experiment.objects.filter(status=Experiment.Status.QUEUED, created__lt=experiment.created).count()


def _ms(value) -> str:
    return "–" if value is None else f"{value:,.1f}"


METRIC_ROWS = (  # (label, how to read it from the metrics dict)
    ("TTFT p50 (ms)", lambda m: _ms(m["ttft_ms"]["p50"])),
    ("TTFT p95 (ms)", lambda m: _ms(m["ttft_ms"]["p95"])),
    ("TTFT p99 (ms)", lambda m: _ms(m["ttft_ms"]["p99"])),
    ("ITL p50 (ms)", lambda m: _ms(m["itl_ms"]["p50"])),
    ("ITL p95 (ms)", lambda m: _ms(m["itl_ms"]["p95"])),
    ("ITL p99 (ms)", lambda m: _ms(m["itl_ms"]["p99"])),
    ("Throughput (output tok/s)", lambda m: f"{m['throughput_tok_s']:,.1f}"),
    ("Throughput (requests/s)", lambda m: f"{m['throughput_req_s']:,.2f}"),
    ("Goodput under the SLO (requests/s)", lambda m: f"{m['goodput_req_s']:,.2f}"),
    ("Requests meeting the SLO", lambda m: f"{m['slo_attainment']:.0%}"),
    ("Preemptions", lambda m: str(m["preemptions"])),
    ("Peak KV usage", lambda m: f"{m['peak_kv_share']:.0%}"),
    ("Prefix cache hit rate", lambda m: f"{m['prefix_hit_rate']:.0%}"),
    ("Engine steps", lambda m: str(m["steps"])),
    ("Worker time (s)", lambda m: f"{m['worker_s']:.2f}"),
)


def metric_rows(experiment: Experiment) -> list[tuple[str, str]]:
    metrics = (experiment.result or {}).get("metrics") or {}
    rows = []
    for label, read in METRIC_ROWS:
        try:
            rows.append((label, read(metrics)))
        except (KeyError, TypeError, ValueError):  # an older or partial result: show what there is
            rows.append((label, "–"))
    return rows


def figures(experiment: Experiment) -> list[dict]:
    found = (experiment.result or {}).get("figures")
    return [f for f in found if isinstance(f, dict) and "figure" in f] if isinstance(found, list) else []


def _overlay(first: Experiment, a: dict, second: Experiment, b: dict | None) -> dict:
    """One figure with both runs' traces on shared axes: the first solid, the second dashed."""
    traces = [
        {**trace, "name": f"#{first.pk} {trace.get('name', '')}".strip(), "legendgroup": "a"}
        for trace in a["figure"].get("data", [])
    ]
    for trace in (b or {}).get("figure", {}).get("data", []):
        line = {**trace.get("line", {}), "dash": "dash"}
        traces.append(
            {
                **trace,
                "line": line,
                "fill": "none",
                "legendgroup": "b",
                "name": f"#{second.pk} {trace.get('name', '')}".strip(),
            }
        )
    layout = {**a["figure"].get("layout", {}), "showlegend": True, "height": 380}
    return {"title": a["title"], "figure": {"data": traces, "layout": layout}}


def comparison(*, first: Experiment, second: Experiment) -> dict:
    """Two runs' metrics row by row, the knobs that differ, and each figure with both runs overlaid."""
    rows = [(label, a, b) for (label, a), (_, b) in zip(metric_rows(first), metric_rows(second))]
    knobs = [
        (name, first.config.get(name), second.config.get(name))
        for name in first.config
        if first.config.get(name) != second.config.get(name)
    ]
    second_figures = {f["title"]: f for f in figures(second)}
    overlays = [_overlay(first, f, second, second_figures.get(f["title"])) for f in figures(first)]
    return {"first": first, "second": second, "rows": rows, "knobs": knobs, "figures": overlays}
