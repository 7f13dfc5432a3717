"""Grader for `scheduler`: the engine's model-free replay runs the learner's policy step by step on hidden traces."""

import functools
import os
import random
import time

from gpu_worker.contract import lab_limits
from gpu_worker.engine.policy import reference_policy
from gpu_worker.engine.replay import make_trace, replay, static_batching_replay
from gpu_worker.graders.cases import figure, line
from gpu_worker.sandbox import LearnerError

SLUG = "scheduler"
FUNCTIONS = ("schedule",)
LIMITS = lab_limits("scheduler")  # from its lab.yaml
BASE_CONFIG = {"max_num_seqs": 8, "max_num_batched_tokens": 256, "block_size": 16, "num_blocks": 128}
CONFIGS = {
    "bursty": BASE_CONFIG,
    "long-tail": BASE_CONFIG,
    "chat": BASE_CONFIG,
    "memory-pressure": {**BASE_CONFIG, "num_blocks": 48, "max_num_batched_tokens": 512},
}
PUBLIC_TRACES = (("bursty", 7), ("memory-pressure", 3))
HIDDEN_KINDS = ("bursty", "long-tail", "memory-pressure")
# The leaderboard's workload: a hidden trace that is the same for every submission on a site, replayed
# unscored after an accepted submit. LEADERBOARD_SEED on the worker changes it for a site; learners never see it.
BOARD_KIND = "chat"
BOARD_SEED_DEFAULT = 604_807
NUM_REQUESTS = 24
STEP_CAP_FACTOR = 4  # a trace must finish within 4x the steps static batching needs
STALL_STEPS = 100  # this many steps in a row with requests present and nothing scheduled: it will never finish
FULL_CREDIT_RATIO = 0.9  # throughput at 90% of the reference policy earns full credit


class _LearnerFailed(BaseException):
    """Carries a LearnerError through the replay (which turns ordinary exceptions into 'policy-raised')."""

    def __init__(self, error: LearnerError):
        self.error = error


class _Stalled(BaseException):
    def __init__(self, step: int, waiting: int):
        self.step, self.waiting = step, waiting


def _learner_policy(session):
    idle = {"steps": 0}

    def policy(state: dict) -> dict:
        try:
            reply = session.call("schedule", state)
        except LearnerError as error:
            raise _LearnerFailed(error) from None
        empty = isinstance(reply, dict) and reply.get("schedule") == {} and not reply.get("preempt")
        idle["steps"] = idle["steps"] + 1 if empty and (state["waiting"] or state["running"]) else 0
        if idle["steps"] >= STALL_STEPS:
            raise _Stalled(state["step"], len(state["waiting"]) + len(state["running"]))
        return reply

    policy.sends_state = True  # the state is encoded for the sandbox: the learner's code never holds ours
    return policy


def run_tests(session, report, rng: random.Random) -> None:
    traces = [(f"{kind}-{seed}", "public", kind, seed) for kind, seed in PUBLIC_TRACES]
    if report.hidden_included:
        traces += [(f"hidden-{kind}", "hidden", kind, rng.randrange(2**31)) for kind in HIDDEN_KINDS]
    for name, visibility, _, _ in traces:
        report.declare(f"{name}: valid and finished", visibility, weight=2.0)
        report.declare(f"{name}: throughput", visibility, weight=1.0)
    summary = {}
    for index, (name, visibility, kind, seed) in enumerate(traces):
        (trace, reference, static), config = baselines(kind, seed), CONFIGS[kind]
        cap = step_cap(trace, config, static.totals["num_steps"])
        report.current = f"{name}: valid and finished"
        try:
            result = replay(_learner_policy(session), trace, config, step_cap=cap)
        except _LearnerFailed as failed:
            if failed.error.fatal:
                raise failed.error from None
            report.record(f"{name}: valid and finished", False, failed.error.message, failed.error.verdict)
            report.record(f"{name}: throughput", False, "not measured: the policy raised", failed.error.verdict)
            continue
        except _Stalled as stalled:
            message = (
                f"step {stalled.step}: nothing scheduled for {STALL_STEPS} steps in a row while "
                f"{stalled.waiting} requests were waiting or running; the trace would never finish"
            )
            report.record(f"{name}: valid and finished", False, message, "wrong_answer", message_public=True)
            report.record(f"{name}: throughput", False, "not measured: trace not finished", "wrong_answer")
            continue
        ok = _judge(report, name, result, reference, cap)
        summary[name] = {"yours": _metrics(result), "reference": _metrics(reference), "static": _metrics(static)}
        if index == 0 or (ok and visibility == "hidden" and kind == "memory-pressure"):
            _plots(report, name, result)
    report.metrics["traces"] = summary
    if report.hidden_included and len(summary) == len(traces):
        board = _board_throughput(session)
        if board is not None:
            report.metrics["board"] = board


@functools.lru_cache(maxsize=32)  # the public traces and the board's have fixed seeds: the same every run
def baselines(kind: str, seed: int) -> tuple:
    """(trace, the reference policy's replay, static batching's replay) of one trace; callers only read them."""
    trace, config = make_trace(kind, seed, num_requests=NUM_REQUESTS), CONFIGS[kind]
    return trace, replay(reference_policy, trace, config, step_cap=100_000), static_batching_replay(trace, config)


def board_seed() -> int:
    value = os.environ.get("LEADERBOARD_SEED", "")
    return int(value) if value.strip().isdigit() else BOARD_SEED_DEFAULT


def _board_throughput(session) -> dict | None:
    """The leaderboard's figure: throughput on the hidden fixed trace; None when the policy does not finish it
    (the submission's verdict and score stand as graded), or when under half the run's wall time is left, so
    that this unscored replay never turns a graded submission into a time limit."""
    if session.process.deadline - time.monotonic() < LIMITS["wall_s"] / 2:
        return None
    (trace, _, static), config = baselines(BOARD_KIND, board_seed()), CONFIGS[BOARD_KIND]
    cap = step_cap(trace, config, static.totals["num_steps"])
    try:
        result = replay(_learner_policy(session), trace, config, step_cap=cap)
    except (_LearnerFailed, _Stalled):
        return None
    if result.error is not None or result.totals["finished"] < result.totals["requests"]:
        return None
    return {"throughput": round(result.totals["tokens_per_step"], 4), "requests": NUM_REQUESTS}


def step_cap(trace: list[dict], config: dict, static_steps: int) -> int:
    """The steps a trace may take: 4x what static batching needs, or what serving one request at a time from
    arrival to its last token needs (with a tenth more), whichever is larger, so a valid but slow policy
    always finishes and only one that leaves requests waiting forever is stopped."""
    step = 0
    for request in sorted(trace, key=lambda request: request["arrival_step"]):
        prefill = -(-request["prompt_len"] // config["max_num_batched_tokens"])
        step = max(step, request["arrival_step"]) + prefill + request["output_len"]
    return max(STEP_CAP_FACTOR * static_steps, step + step // 10 + 1)


def _percentile(values: list, q: float):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, -(-q * len(ordered) // 100) - 1)] if ordered else None


def _metrics(result) -> dict:
    ttft = [r.ttft_steps for r in result.requests if r.ttft_steps is not None]
    itl = [gap for r in result.requests for gap in r.itl_steps]
    totals = result.totals
    return {
        "steps": totals["num_steps"],
        "finished": totals["finished"],
        "requests": totals["requests"],
        "output_tokens": totals["output_tokens"],
        "throughput": round(totals["tokens_per_step"], 4),
        "ttft_p50": _percentile(ttft, 50),
        "ttft_p99": _percentile(ttft, 99),
        "itl_p50": _percentile(itl, 50),
        "itl_p99": _percentile(itl, 99),
        "preemptions": totals["preemptions"],
        "peak_blocks_used": totals["peak_blocks_used"],
    }


def _judge(report, name: str, result, reference, cap: int) -> bool:
    valid = f"{name}: valid and finished"
    if result.error is not None:
        error = result.error
        message = f"step {error.step}: rule '{error.rule}' broken: {error.message}"
        report.record(valid, False, message, "wrong_answer", message_public=True)
        report.record(f"{name}: throughput", False, "not measured: invalid decision", "wrong_answer")
        return False
    if result.totals["finished"] < result.totals["requests"]:
        message = (
            f"step {cap}: only {result.totals['finished']} of {result.totals['requests']} requests finished "
            f"within the step cap ({STEP_CAP_FACTOR}x what static batching needs, or more when serving one "
            "request at a time needs more); does every waiting request get scheduled eventually?"
        )
        report.record(valid, False, message, "wrong_answer", message_public=True)
        report.record(f"{name}: throughput", False, "not measured: trace not finished", "wrong_answer")
        return False
    report.record(valid, True)
    yours, best = result.totals["tokens_per_step"], reference.totals["tokens_per_step"]
    ratio = yours / best if best else 1.0
    credit = max(0.0, min(1.0, ratio / FULL_CREDIT_RATIO))
    report.record(
        f"{name}: throughput",
        True,
        f"{yours:.3f} tokens/step, {ratio:.0%} of the reference policy",
        credit=round(credit, 4),
        message_public=True,
    )
    return True


def _plots(report, name: str, result) -> None:
    steps = [record.step for record in result.steps]
    report.plots.append(
        figure(
            f"{name}: batch size and KV blocks per step",
            [
                line("batch size", steps, [record.batch_size for record in result.steps]),
                line("KV blocks used", steps, [record.blocks_used for record in result.steps], "dash", yaxis="y2"),
            ],
            "step",
            "requests in the batch",
            yaxis2={"title": {"text": "KV blocks"}, "overlaying": "y", "side": "right"},
        )
    )
    traces = []
    for row, request in enumerate(result.requests[:40]):
        if request.ttft_steps is None:
            continue
        first = request.arrival_step + request.ttft_steps
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": request.id,
                "showlegend": False,
                "x": [request.arrival_step, first, first + sum(request.itl_steps)],
                "y": [row] * 3,
                "marker": {"symbol": ["circle-open", "circle", "square"]},
            }
        )
    report.plots.append(
        figure(f"{name}: per-request timeline (arrival, first token, last token)", traces, "step", "request")
    )
