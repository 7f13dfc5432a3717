"""Grader for `kv-sizing`: KV bytes per token, blocks that fit, and concurrent sequences, checked exactly."""

import random

from gpu_worker.contract import kv as sizing
from gpu_worker.contract import lab_limits
from gpu_worker.graders import kv_cases
from gpu_worker.graders.cases import attempt, exact_int, figure, line
from gpu_worker.sandbox import LearnerError

SLUG = "kv-sizing"
FUNCTIONS = ("kv_bytes_per_token", "num_gpu_blocks", "max_concurrent_seqs")
LIMITS = lab_limits("kv-sizing")  # from its lab.yaml
GIB = 1024**3

# Published shapes of well-known models (facts): used by public cases and the plot.
MODELS = {
    "llama-3-8b (GQA)": {
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_size": 4096,
    },
    "llama-2-7b (MHA)": {"num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4096},
    "falcon-7b (MQA)": {
        "num_hidden_layers": 32,
        "num_attention_heads": 71,
        "num_key_value_heads": 1,
        "hidden_size": 4544,
        "head_dim": 64,
    },
    "gemma-7b (head_dim 256)": {
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "hidden_size": 3072,
        "head_dim": 256,
    },
}


COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def public_cases() -> list[tuple[str, str, tuple]]:
    llama3, llama2 = MODELS["llama-3-8b (GQA)"], MODELS["llama-2-7b (MHA)"]
    return [
        ("kv-llama3-8b-fp16", "kv_bytes_per_token", (llama3, 2)),
        ("kv-mha-no-kv-heads-key", "kv_bytes_per_token", (llama2, 2)),
        ("blocks-80gb-0.9", "num_gpu_blocks", (80 * GIB, 0.9, 16 * GIB, 2 * GIB, 16, 131072)),
        ("blocks-startup-oom", "num_gpu_blocks", (24 * GIB, 0.3, 16 * GIB, 1 * GIB, 16, 131072)),
        ("seqs-2048-tokens", "max_concurrent_seqs", (4096, 16, 2048)),
        ("seqs-partial-last-block", "max_concurrent_seqs", (4096, 16, 2050)),
    ]


def hidden_cases(rng: random.Random) -> list[tuple[str, str, tuple]]:
    """Every parameter over the statement's range, with its edges in every submit (gpu_worker/graders/kv_cases.py)."""
    return kv_cases.hidden_cases(rng)


def expected(function: str, args: tuple) -> int:
    return getattr(sizing, function)(*args)


def run_tests(session, report, rng: random.Random) -> None:
    cases = [(name, "public", fn, args) for name, fn, args in public_cases()]
    if report.hidden_included:
        cases += [(f"hidden-{name}", "hidden", fn, args) for name, fn, args in hidden_cases(rng)]
    for name, visibility, _, _ in cases:
        report.declare(name, visibility)
    for name, _, function, args in cases:
        call = f"{function}({', '.join(_short(arg) for arg in args)})"
        attempt(report, name, lambda: exact_int(session.call(function, *args), expected(function, args), call))
    _plot(session, report)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _plot(session, report) -> None:
    """KV cache per sequence against context length (fp16), learner's numbers over the reference.

    Memory is proportional to context, and the models differ by up to 32x per token: log-log axes
    turn each model into a straight line of slope one, evenly spaced, with one tick per context
    length and one per power of ten, nothing in between."""
    contexts = [512, 1024, 2048, 4096, 8192, 16384, 32768]
    traces = []
    for index, (model, config) in enumerate(MODELS.items()):
        try:
            got = session.call("kv_bytes_per_token", config, 2)
        except LearnerError as error:  # the plot is best effort; the tests already judged
            if error.fatal:
                raise
            got = None
        reference = sizing.kv_bytes_per_token(config, 2)
        pair = [line(f"{model} reference", contexts, [reference * c / 2**20 for c in contexts], "dash")]
        if isinstance(got, int) and not isinstance(got, bool) and got > 0:
            pair.append(line(f"{model} yours", contexts, [got * c / 2**20 for c in contexts]))
        color = COLORS[index % len(COLORS)]  # one colour per model: dashed reference, solid yours
        for trace in pair:
            trace["line"]["color"] = color
            trace.update(marker={"color": color}, legendgroup=model)
        traces += pair
    labels = [f"{c // 1024}K" if c >= 1024 else str(c) for c in contexts]
    report.plots.append(
        figure(
            "KV cache per sequence (fp16)",
            traces,
            "context length (tokens)",
            "KV cache per sequence (MiB)",
            xaxis={
                "title": {"text": "context length (tokens, log scale)"},
                "type": "log",
                "tickvals": contexts,
                "ticktext": labels,
                "minor": {"showgrid": False},
            },
            yaxis={
                "title": {"text": "KV cache per sequence (MiB, log scale)"},
                "type": "log",
                "dtick": 1,
                "minor": {"showgrid": False},
            },
        )
    )


def run_custom(session, report, custom) -> None:
    """A Run on the learner's own input (graders/custom_input.py)."""
    from gpu_worker.graders import custom_input

    custom_input.kv_sizing(session, report, custom)
