"""Grader for `scheduler`: the engine's model-free replay runs the learner's policy step by step on hidden workloads
(gpu_worker/graders/scheduler_cases.py); the leaderboard's replay is scheduler_board.py."""

import random
from dataclasses import dataclass

from gpu_worker.contract import lab_limits
from gpu_worker.engine.policy import reference_policy
from gpu_worker.engine.replay import replay, static_batching_replay
from gpu_worker.graders import scheduler_board, scheduler_cases
from gpu_worker.graders.cases import figure, line
from gpu_worker.sandbox import LearnerError

SLUG = "scheduler"
FUNCTIONS = ("schedule",)
LIMITS = lab_limits("scheduler")  # from its lab.yaml
CONFIGS = scheduler_cases.KIND_CONFIGS
NUM_REQUESTS = scheduler_cases.NUM_REQUESTS
PUBLIC_TRACES = (("bursty", 7), ("memory-pressure", 3))
HIDDEN_KINDS = ("bursty", "long-tail", "memory-pressure")
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


@dataclass
class Outcome:
    """A policy's replay of one workload beside the reference's; `failure` is (verdict, message) when it failed."""

    result: object
    reference: object
    static: object
    cap: int
    failure: tuple[str, str] | None = None
    raised: LearnerError | None = None


def _watched(call):
    """`call(state) -> reply` with a stall detector; a LearnerError from `call` passes through the replay."""
    idle = {"steps": 0}

    def policy(state: dict) -> dict:
        try:
            reply = call(state)
        except LearnerError as error:
            raise _LearnerFailed(error) from None
        empty = isinstance(reply, dict) and reply.get("schedule") == {} and not reply.get("preempt")
        idle["steps"] = idle["steps"] + 1 if empty and (state["waiting"] or state["running"]) else 0
        if idle["steps"] >= STALL_STEPS:
            raise _Stalled(state["step"], len(state["waiting"]) + len(state["running"]))
        return reply

    policy.sends_state = True  # the state is encoded for the sandbox: the learner's code never holds ours
    return policy


def run_workload(call, workload: scheduler_cases.Workload, compare: bool = True) -> Outcome:
    """Replays `call` (the learner's `schedule`, through a session or not) on `workload` and judges it: an
    invalid decision or a stall ends it, and every request must finish within the step cap. Without `compare`
    the reference policy is not replayed (a board figure, or a test that only asks whether it failed)."""
    trace, config = workload.trace, workload.config
    reference = replay(reference_policy, trace, config, step_cap=100_000) if compare else None
    static = static_batching_replay(trace, config)
    cap = step_cap(trace, config, static.totals["num_steps"])
    outcome = Outcome(None, reference, static, cap)
    try:
        outcome.result = replay(_watched(call), trace, config, step_cap=cap)
    except _LearnerFailed as failed:
        outcome.raised, outcome.failure = failed.error, (failed.error.verdict, failed.error.message)
        return outcome
    except _Stalled as stalled:
        outcome.failure = (  # a property of the policy, not of the host: wrong, naming the step
            "wrong_answer",
            f"step {stalled.step}: nothing scheduled for {STALL_STEPS} steps in a row while "
            f"{stalled.waiting} requests were waiting or running; the trace would never finish",
        )
        return outcome
    result = outcome.result
    if result.error is not None:
        outcome.failure = (
            "wrong_answer",
            f"step {result.error.step}: rule '{result.error.rule}' broken: {result.error.message}",
        )
    elif result.totals["finished"] < result.totals["requests"]:
        outcome.failure = (
            "wrong_answer",
            f"step {cap}: only {result.totals['finished']} of {result.totals['requests']} requests finished "
            f"within the step cap ({STEP_CAP_FACTOR}x what static batching needs, or more when serving one "
            "request at a time needs more); does every waiting request get scheduled eventually?",
        )
    return outcome


def workloads(hidden: bool, rng: random.Random) -> list[tuple[scheduler_cases.Workload, str]]:
    """(workload, visibility): the public traces, then on submit three drawn traces and one workload per edge."""
    chosen = [(scheduler_cases.kind_workload(f"{kind}-{seed}", kind, seed), "public") for kind, seed in PUBLIC_TRACES]
    if hidden:
        chosen += [
            (scheduler_cases.kind_workload(f"hidden-{kind}", kind, rng.randrange(2**31)), "hidden")
            for kind in HIDDEN_KINDS
        ]
        chosen += [
            (scheduler_cases.Workload(f"hidden-{w.name}", w.trace, w.config), "hidden")
            for w in scheduler_cases.edge_workloads(rng)
        ]
    return chosen


def run_tests(session, report, rng: random.Random) -> None:
    chosen = workloads(report.hidden_included, rng)
    for workload, visibility in chosen:
        report.declare(f"{workload.name}: valid and finished", visibility, weight=2.0)
        report.declare(f"{workload.name}: throughput", visibility, weight=1.0)
    summary = {}
    for index, (workload, visibility) in enumerate(chosen):
        name = workload.name
        report.current = f"{name}: valid and finished"
        outcome = run_workload(lambda state: session.call("schedule", state), workload)
        if outcome.raised is not None and outcome.raised.fatal:
            raise outcome.raised from None
        if outcome.failure is not None:
            verdict, message = outcome.failure
            public = outcome.raised is None  # a learner exception's message is theirs: shown as the runner shows it
            report.record(f"{name}: valid and finished", False, message, verdict, message_public=public)
            reason = "the policy raised" if outcome.raised else "trace not finished or invalid decision"
            report.record(f"{name}: throughput", False, f"not measured: {reason}", verdict)
            continue
        _judge(report, name, outcome.result, outcome.reference)
        summary[name] = {
            "yours": _metrics(outcome.result),
            "reference": _metrics(outcome.reference),
            "static": _metrics(outcome.static),
        }
        if index == 0 or (visibility == "hidden" and name == "hidden-memory-pressure"):
            _plots(report, name, outcome.result)
    report.metrics["traces"] = summary


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


def _judge(report, name: str, result, reference) -> None:
    report.record(f"{name}: valid and finished", True)
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


def run_custom(session, report, custom) -> None:
    """A Run on the learner's own trace (graders/custom_input.py): replayed with their policy and with the
    reference policy, the figures side by side; it passes when their replay is valid and finishes."""
    from gpu_worker.graders import custom_input

    checked = custom_input.start(report, custom)
    if checked is None:
        return
    workload = scheduler_cases.Workload("custom input", checked["requests"], checked["config"])
    outcome = run_workload(lambda state: session.call("schedule", state), workload)
    if outcome.raised is not None and outcome.raised.fatal:
        raise outcome.raised from None
    verdict, why = outcome.failure or ("wrong_answer", "")
    if outcome.raised is not None:
        why = f"your policy raised: {outcome.raised.message.strip()}"
    mine, reference = (None if outcome.result is None else _metrics(outcome.result)), outcome.reference
    theirs = _metrics(reference)
    for key in ("steps", "finished", "throughput", "preemptions", "ttft_p50", "itl_p50", "peak_blocks_used"):
        yours = "-" if mine is None else str(mine[key])
        custom_input.add_row(report, key.replace("_", " "), yours, str(theirs[key]), yours == str(theirs[key]))
    custom_input.finish(report, not why, verdict, why)


def board_replay(source: str, report, limits) -> None:
    """The leaderboard's replay (scheduler_board.py): the runner calls it once the graded sessions are closed."""
    scheduler_board.board_replay(source, report, limits, run_workload)
