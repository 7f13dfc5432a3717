"""Widget registry: each widget's mount point and its server-rendered text equivalent (the no-JS view)."""

import json

from django.utils.html import format_html, format_html_join

from . import kv_math, widget_math

BATCHING_DEFAULT_LENGTHS = [12, 3, 8, 20, 5, 9, 4, 15, 6, 10]
BATCHING_DEFAULT_SLOTS = 4
RING_DEFAULT_RANKS = 4
RING_DEFAULT_MIB = 256


def _kv_fallback() -> str:
    rows = []
    for preset in kv_math.PRESETS.values():
        report = kv_math.kv_report(
            config=preset,
            dtype_bytes=2,
            gpu_memory_bytes=80 * kv_math.GIB,
            gpu_memory_utilization=0.9,
            weight_bytes=int(preset["params_b"] * 1e9 * 2),
            activation_bytes=2 * kv_math.GIB,
            block_size=16,
            max_model_len=8192,
            context_len=2048,
            batch=1,
        )
        rows.append(
            (
                preset["label"],
                report["bytes_per_token"],
                kv_math.human_bytes(report["bytes_per_token"]),
                kv_math.human_bytes(report["bytes_per_sequence"]),
                report["num_blocks"],
                report["seqs_fit_paged"],
                report["seqs_fit_contiguous"],
            )
        )
    body = format_html_join(
        "", '<tr><th scope="row">{}</th><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>', rows
    )
    return format_html(
        '<table class="widget-fallback"><caption>KV cache in FP16 on an 80 GiB GPU at 0.9 utilization, '
        "FP16 weights, 2 GiB activation peak, blocks of 16 tokens, sequences using 2048 tokens, "
        'contiguous reservation of 8192; 0 blocks means the weights alone exceed the budget</caption><thead><tr><th scope="col">Model</th>'
        '<th scope="col">Bytes per token</th><th scope="col">Per 2048-token sequence</th>'
        '<th scope="col">Blocks</th><th scope="col">Sequences that fit (paged)</th>'
        '<th scope="col">Sequences that fit (contiguous 8192)</th></tr></thead><tbody>{}</tbody></table>',
        body,
    )


def _ring_fallback() -> str:
    ranks, tensor_mib = RING_DEFAULT_RANKS, RING_DEFAULT_MIB
    rows = []
    for index, step in enumerate(widget_math.ring_steps(ranks), start=1):
        sends = ", ".join(f"r{s['rank']}→r{s['to']} chunk {s['chunk']}" for s in step["sends"])
        sent = widget_math.ring_bytes_per_rank(ranks, tensor_mib, index)
        rows.append((index, step["phase"], sends, f"{sent:g} MiB"))
    body = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows)
    total = widget_math.ring_bytes_per_rank(ranks, tensor_mib, 2 * (ranks - 1))
    return format_html(
        '<table class="widget-fallback"><caption>Ring all-reduce of a {} MiB tensor on {} ranks '
        "(chunks of {} MiB); each rank sends 2(N−1)/N · K = {} MiB in total</caption><thead><tr>"
        '<th scope="col">Step</th><th scope="col">Phase</th><th scope="col">Sends</th>'
        '<th scope="col">Sent per rank so far</th></tr></thead><tbody>{}</tbody></table>',
        tensor_mib,
        ranks,
        f"{tensor_mib / ranks:g}",
        f"{total:g}",
        body,
    )


def _batching_fallback() -> str:
    result = widget_math.batching_timeline(BATCHING_DEFAULT_LENGTHS, BATCHING_DEFAULT_SLOTS)
    rows = [
        (name, r["steps"], r["busy"], r["capacity"], r["utilization"], r["mean_finish"])
        for name, r in (("Static batching", result["static"]), ("Continuous batching", result["continuous"]))
    ]
    body = format_html_join(
        "", '<tr><th scope="row">{}</th><td>{}</td><td>{} of {}</td><td>{}%</td><td>{}</td></tr>', rows
    )
    return format_html(
        '<table class="widget-fallback"><caption>{} requests with output lengths {} on {} slots</caption>'
        '<thead><tr><th scope="col">Scheme</th><th scope="col">Iterations</th>'
        '<th scope="col">Busy slot-iterations</th><th scope="col">Utilization</th>'
        '<th scope="col">Mean finish iteration</th></tr></thead><tbody>{}</tbody></table>',
        len(BATCHING_DEFAULT_LENGTHS),
        ", ".join(map(str, BATCHING_DEFAULT_LENGTHS)),
        BATCHING_DEFAULT_SLOTS,
        body,
    )


def _roofline_fallback() -> str:
    model = widget_math.MODELS["llama-3-8b"]
    sizes = {"params_b": model["params_b"], "kv_bytes_per_token": model["kv_bytes_per_token"]}
    rows = []
    for gpu in widget_math.GPUS.values():
        prefill = widget_math.roofline_point(
            gpu=gpu, **sizes, batch=1, tokens_per_seq=2048, context_len=0, hidden_size=model["hidden_size"]
        )
        decode = widget_math.decode_step(gpu=gpu, **sizes, batch=8, context_len=2048)
        rows.append(
            (
                gpu["label"],
                prefill["ridge"],
                prefill["intensity"],
                prefill["bound"],
                decode["intensity"],
                decode["bound"],
                decode["step_ms"],
            )
        )
    body = format_html_join(
        "",
        '<tr><th scope="row">{}</th><td>{}</td><td>{} ({}-bound)</td><td>{} ({}-bound), at least {} ms</td></tr>',
        rows,
    )
    return format_html(
        '<table class="widget-fallback"><caption>Llama-3-8B in FP16: arithmetic intensity in FLOP per byte '
        "of one 2048-token prefill (weights and activations counted) and of one decode step for 8 sequences of "
        "2048 tokens (weights and KV cache counted), against each GPU's ridge point</caption><thead><tr>"
        '<th scope="col">GPU</th><th scope="col">Ridge point</th><th scope="col">Prefill</th>'
        '<th scope="col">Decode, batch 8</th></tr></thead><tbody>{}</tbody></table>',
        body,
    )


FALLBACKS = {
    "kv-calculator": ("KV cache calculator", _kv_fallback),
    "ring-stepper": ("Ring all-reduce stepper", _ring_fallback),
    "batching-timeline": ("Static vs continuous batching timeline", _batching_fallback),
    "roofline": ("Prefill and decode on the roofline", _roofline_fallback),
}
WIDGET_NAMES = frozenset(FALLBACKS)


def widget_config(name: str) -> dict:
    """Defaults and presets the script starts from, so it shows what the fallback table shows."""
    if name == "kv-calculator":
        return {
            "presets": kv_math.PRESETS,
            "defaults": {
                "preset": "llama-3-8b",
                "dtype_bytes": 2,
                "gpu_memory_gib": 80,
                "gpu_memory_utilization": 0.9,
                "activation_gib": 2,
                "block_size": 16,
                "max_model_len": 8192,
                "context_len": 2048,
                "batch": 32,
            },
        }
    if name == "ring-stepper":
        return {"ranks": RING_DEFAULT_RANKS, "tensor_mib": RING_DEFAULT_MIB}
    if name == "batching-timeline":
        return {"lengths": BATCHING_DEFAULT_LENGTHS, "slots": BATCHING_DEFAULT_SLOTS}
    return {
        "gpus": widget_math.GPUS,
        "models": widget_math.MODELS,
        "defaults": {"gpu": "a100", "model": "llama-3-8b", "batch": 8, "prompt_len": 2048, "context_len": 2048},
    }


def widget_html(name: str) -> str:
    """The mount point: a labelled region holding the text equivalent the script enhances."""
    title, fallback = FALLBACKS[name]
    return format_html(
        '<div class="widget" data-widget="{}" data-config="{}" role="region" aria-label="{}">'
        '<p class="widget-title"><strong>{}</strong></p><div class="widget-fallback-wrap">{}</div>'
        '<noscript><p class="muted">Turn on JavaScript to operate this widget; the table holds its '
        "figures.</p></noscript></div>",
        name,
        json.dumps(widget_config(name), separators=(",", ":")),
        title,
        title,
        fallback(),
    )
