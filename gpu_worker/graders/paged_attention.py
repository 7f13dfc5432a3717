"""Grader for `paged-attention`: the learner's decode attention against the torch reference, then inside the engine."""

import random
from pathlib import Path

import torch

from gpu_worker.contract import boards, lab_limits
from gpu_worker.engine.attention import paged_attention_decode as reference_attention
from gpu_worker.graders import paged_cases, paged_inputs, paged_timing
from gpu_worker.graders.cases import attempt, figure, line
from gpu_worker.graders.paged_roofline import add_roofline
from gpu_worker.sandbox import LearnerError

SLUG = "paged-attention"
FUNCTIONS = ("paged_attention_decode",)
LIMITS = lab_limits("paged-attention")  # from its lab.yaml
TIMING_CONTEXTS = (64, 256, boards.PAGED_CONTEXT)  # the board ranks the last
TIMED_TEST = "timed-calls-match-the-reference"  # every timed output is checked: a kernel right only off the clock fails


def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def session_options() -> dict:
    """Triton's interpreter on CPU; the timing's sandbox side bound in as a plugin."""
    return {
        "env": {"TRITON_INTERPRET": "1"} if device() == "cpu" else {},
        "file_binds": {"paged_calls.py": Path(__file__).resolve().parent / "paged_calls.py"},
    }


def run_tests(session, report, rng: random.Random) -> None:
    dev = device()
    dtypes = [torch.float32] + ([torch.float16, torch.bfloat16] if dev == "cuda" else [])
    cases = [(case, "public", torch.float32) for case in paged_inputs.public_cases()]
    if report.hidden_included:
        cases += [(case, "hidden", dtype) for case in paged_cases.hidden_cases(rng) for dtype in dtypes]
    names = []
    for case, visibility, dtype in cases:
        name = (case.name if visibility == "public" else f"hidden-{case.name}") + _dtype_suffix(dtype)
        report.declare(name, visibility)
        names.append(name)
    if report.hidden_included:
        report.declare("engine-generates-same-tokens", "hidden", weight=4.0)
    report.declare(TIMED_TEST, "public")
    for name, (case, _, dtype) in zip(names, cases):
        args = paged_inputs.build(case, rng.randrange(2**31), dtype)
        expected = reference_attention(*[a.to(dev) if isinstance(a, torch.Tensor) else a for a in args]).cpu()
        atol, rtol = paged_inputs.TOLERANCE[dtype]
        attempt(
            report,
            name,
            lambda: paged_inputs.compare(
                session.call("paged_attention_decode", *args, device=dev), expected, atol, rtol
            ),
        )
    report.metrics["device"] = dev
    if report.hidden_included:
        from gpu_worker.graders.paged_engine import engine_check

        attempt(
            report, "engine-generates-same-tokens", lambda: engine_check(session, report, rng, dev), message_public=True
        )  # says which token differs: nothing about the hidden cases
    if not all(test.passed for name, test in report.tests.items() if name != TIMED_TEST):
        report.record(TIMED_TEST, False, "not run: the kernel is timed once every other test passes")
        return
    report.current = TIMED_TEST
    try:
        _timing(session, report, rng, dev)
    except paged_timing.TimedCallRefused as refused:
        report.record(TIMED_TEST, False, refused.message, refused.verdict, message_public=True)
    else:
        report.record(TIMED_TEST, True)


def _dtype_suffix(dtype) -> str:
    return "" if dtype == torch.float32 else f"-{str(dtype).removeprefix('torch.')}"


def _timing(session, report, rng: random.Random, dev: str) -> None:
    """Latency against context length, learner's function beside the torch reference, both timed by the
    grader on fresh inputs with every output checked (paged_timing); the board's context is timed again
    when its rounds disagree too much."""
    dtype = torch.float32 if dev == "cpu" else torch.float16
    yours, reference, board = [], [], None
    for context in TIMING_CONTEXTS:
        try:  # a timing that stops leaves the verdict to the tests; a refused output does not
            timed = paged_timing.time_case(
                session, timing_case(context), dtype, dev, rng, retime=context == TIMING_CONTEXTS[-1]
            )
        except paged_timing.TimingStopped as stopped:
            report.metrics["timing_note"] = f"timing stopped: {stopped}"
            break
        except LearnerError as error:
            if error.fatal:
                raise
            report.metrics["timing_note"] = f"timing stopped: {error.message.splitlines()[0]}"
            break
        yours.append(timed.median_ms)
        reference.append(timed.reference_ms)
        board = timed
    if not yours:
        return
    contexts = list(TIMING_CONTEXTS[: len(yours)])
    report.metrics.update(
        {
            "median_ms": yours[-1],
            "reference_ms": reference[-1],
            "timing_context": contexts[-1],
            "timing_batch": 4,
            "speed_ratio": round(reference[-1] / yours[-1], 3) if yours[-1] else None,
            "timing_rounds": len(board.yours_s),
            "timing_calls_per_round": board.calls,
            "timing_spread_pct": round(100 * board.spread, 1),
            "timing_retimed": board.retimed,
        }
    )
    if board.noisy:
        report.metrics["timing_noisy"] = True
    report.plots.append(
        figure(
            "Decode attention latency (batch 4, 8 heads)",
            [line("yours", contexts, yours), line("torch reference", contexts, reference, "dash")],
            "context length (tokens)",
            "median latency (ms)",
        )
    )
    add_roofline(
        report,
        case=timing_case(contexts[-1]),
        element_bytes=dtype.itemsize,
        dev=dev,
        yours_ms=yours[-1],
        reference_ms=reference[-1],
    )


def timing_case(context: int) -> paged_inputs.PagedCase:
    """The timed workload: batch 4, 2 KV heads x 4 query heads each, head_dim 64, every context `context`."""
    return paged_inputs.PagedCase(f"timing-{context}", 4, 2, 4, 64, 16, (context,) * 4)


def run_custom(session, report, custom) -> None:
    """A Run on the learner's own input (graders/custom_input.py)."""
    from gpu_worker.graders import custom_input

    custom_input.paged_attention(session, report, custom, dev=device())
