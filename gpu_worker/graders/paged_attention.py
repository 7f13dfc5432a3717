"""Grader for `paged-attention`: the learner's decode attention against the torch reference, then inside the engine."""

import random
import statistics
import time

import torch

from gpu_worker.contract import lab_limits
from gpu_worker.engine.attention import paged_attention_decode as reference_attention
from gpu_worker.graders import paged_inputs
from gpu_worker.graders.cases import attempt, figure, line
from gpu_worker.graders.paged_roofline import add_roofline
from gpu_worker.sandbox import LearnerError
from gpu_worker.timing import call_seconds, median_ms, torch_threads

SLUG = "paged-attention"
FUNCTIONS = ("paged_attention_decode",)
LIMITS = lab_limits("paged-attention")  # from its lab.yaml
TOLERANCE = {torch.float32: (1e-4, 1e-3), torch.float16: (2e-2, 2e-2), torch.bfloat16: (5e-2, 5e-2)}
TIMING_CONTEXTS = (64, 256, 1024)
SLOW_CALL_S = 0.5  # a first call slower than this (e.g. Triton's CPU interpreter) ends the timing early


def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def session_options() -> dict:
    return {"env": {"TRITON_INTERPRET": "1"} if device() == "cpu" else {}}


def run_tests(session, report, rng: random.Random) -> None:
    dev = device()
    dtypes = [torch.float32] + ([torch.float16, torch.bfloat16] if dev == "cuda" else [])
    cases = [(case, "public", torch.float32) for case in paged_inputs.public_cases()]
    if report.hidden_included:
        cases += [(case, "hidden", dtype) for case in paged_inputs.hidden_cases(rng) for dtype in dtypes]
    names = []
    for case, visibility, dtype in cases:
        name = (case.name if visibility == "public" else f"hidden-{case.name}") + _dtype_suffix(dtype)
        report.declare(name, visibility)
        names.append(name)
    if report.hidden_included:
        report.declare("engine-generates-same-tokens", "hidden", weight=4.0)
    for name, (case, _, dtype) in zip(names, cases):
        args = paged_inputs.build(case, rng.randrange(2**31), dtype)
        expected = reference_attention(*[a.to(dev) if isinstance(a, torch.Tensor) else a for a in args]).cpu()
        atol, rtol = TOLERANCE[dtype]
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
    if all(test.passed for test in report.tests.values()):
        _timing(session, report, rng, dev)


def _dtype_suffix(dtype) -> str:
    return "" if dtype == torch.float32 else f"-{str(dtype).removeprefix('torch.')}"


def _timing(session, report, rng: random.Random, dev: str) -> None:
    """Latency against context length, learner's function beside the torch reference, both timed by
    the grader (what the sandbox reports about its own speed is not used)."""
    dtype = torch.float32 if dev == "cpu" else torch.float16
    yours, reference = [], []
    for context in TIMING_CONTEXTS:
        case = timing_case(context)
        args = paged_inputs.build(case, rng.randrange(2**31), dtype)
        try:  # timing only measures: failing here leaves the verdict to the tests
            once = _grader_seconds(session, args, dev, 1)
            if once > SLOW_CALL_S:
                report.metrics["timing_note"] = f"timing stopped: one call took {once:.2f} s at context {context}"
                break
            yours.append(round(_per_call_s(session, args, dev) * 1e3, 4))
        except LearnerError as error:
            report.metrics["timing_note"] = f"timing stopped: {error.message.splitlines()[0]}"
            break
        reference.append(
            median_ms(_time_reference([a.to(dev) if isinstance(a, torch.Tensor) else a for a in args], dev), digits=4)
        )
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
        }
    )
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


def _grader_seconds(session, args: tuple, dev: str, calls: int) -> float:
    """The grader's wall clock around one round trip that runs the learner's function `calls` times."""
    started = time.perf_counter()
    session.call("paged_attention_decode", *args, device=dev, repeats=calls)
    return time.perf_counter() - started


def _per_call_s(session, args: tuple, dev: str, extra: int = 6, rounds: int = 3) -> float:
    """Seconds per call by the grader's clock, never the sandbox's: a round trip with `extra` more calls
    minus one with a single call, so moving the inputs and the answer cancels out (median of rounds)."""
    _grader_seconds(session, args, dev, 1)  # warm-up
    spans, totals = [], []
    for _ in range(rounds):
        totals.append(_grader_seconds(session, args, dev, 1 + extra))
        spans.append((totals[-1] - _grader_seconds(session, args, dev, 1)) / extra)
    span = statistics.median(spans)
    # a host busy enough to make the difference meaningless: the whole round trip per call, an upper bound
    return span if span > 0 else statistics.median(totals) / (1 + extra)


def _time_reference(args: list, dev: str) -> list[float]:
    with torch_threads(1):  # as in the sandbox (OMP_NUM_THREADS=1), so the comparison is fair
        return call_seconds(lambda: reference_attention(*args), warmup=2, repeats=7, device=dev)


def run_custom(session, report, custom) -> None:
    """A Run on the learner's own input (graders/custom_input.py)."""
    from gpu_worker.graders import custom_input

    custom_input.paged_attention(session, report, custom, dev=device())
