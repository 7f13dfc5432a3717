"""Grader for `kv-sizing`: KV bytes per token, blocks that fit, and concurrent sequences, checked exactly."""

import random

from gpu_worker.contract import kv as sizing
from gpu_worker.contract import lab_limits
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
    cases = []
    for index in range(14):
        kind = ("mha", "gqa", "mqa")[index % 3]
        heads = rng.choice([8, 12, 16, 32, 40, 64, 96])
        kv_heads = {"mha": heads, "gqa": heads // rng.choice([2, 4, 8] if heads % 8 == 0 else [2, 4]), "mqa": 1}[kind]
        head_dim = rng.choice([64, 80, 96, 128, 256])
        config = {
            "num_hidden_layers": rng.randint(2, 96),
            "num_attention_heads": heads,
            "hidden_size": heads * head_dim,
        }
        if kind != "mha" or rng.random() < 0.5:
            config["num_key_value_heads"] = kv_heads
        if index % 4 == 1:  # explicit head_dim that differs from hidden_size // heads
            config["head_dim"] = rng.choice([d for d in (64, 128, 256) if d != head_dim])
        cases.append((f"kv-{kind}-{index:02d}", "kv_bytes_per_token", (config, (1, 2, 4)[index % 3])))
    for index in range(10):
        memory = rng.choice([16, 24, 40, 48, 80, 141]) * GIB + rng.randrange(0, GIB)
        utilization = rng.choice([0.5, 0.8, 0.85, 0.9, 0.92, 0.95])
        weights = int(memory * rng.uniform(0.05, 0.8 if index % 5 else 1.1))  # every fifth: no room left
        activations = rng.randrange(0, 4 * GIB)
        block_size = rng.choice([8, 16, 32])
        per_token = 2 * rng.randint(1, 80) * rng.choice([1, 2, 8]) * 128 * rng.choice([1, 2, 4])
        cases.append(
            (
                f"blocks-{index:02d}",
                "num_gpu_blocks",
                (memory, utilization, weights, activations, block_size, per_token),
            )
        )
    exact = rng.randint(1, 4) * 16 * 37  # enough memory for exactly 0 blocks after weights: edge of zero
    cases.append(("blocks-exactly-none-left", "num_gpu_blocks", (exact * 2, 0.5, exact, 0, 16, 1024)))
    for index in range(8):
        block_size = rng.choice([8, 16, 32])
        seq_len = rng.choice([1, block_size - 1, block_size, block_size + 1, rng.randint(2, 32768)])
        cases.append((f"seqs-{index:02d}", "max_concurrent_seqs", (rng.randint(0, 200000), block_size, seq_len)))
    return cases


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
