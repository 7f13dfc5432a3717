"""Model-free replay of the scheduler contract for the scheduler lab: the engine's own scheduler and block
accounting, with tokens that cost nothing, so a policy is judged on steps, latency in steps and memory."""

import copy
import statistics
from dataclasses import dataclass, field

from .block_pool import BlockPool
from .policy import InvalidDecision, reference_policy, validate_decision
from .sampling import SamplingParams
from .scheduler import Scheduler
from .sequence import Sequence
from .traces import make_trace  # noqa: F401  (part of this module's interface)


@dataclass
class StepRecord:
    step: int
    batch_size: int
    tokens_scheduled: int
    blocks_used: int
    preemptions: int
    num_running: int
    num_waiting: int


@dataclass
class RequestRecord:
    id: str
    arrival_step: int
    prompt_len: int
    output_len: int
    finished: bool
    ttft_steps: int | None
    itl_steps: list[int]
    num_preemptions: int


@dataclass
class ReplayResult:
    steps: list[StepRecord] = field(default_factory=list)
    requests: list[RequestRecord] = field(default_factory=list)
    totals: dict = field(default_factory=dict)
    error: InvalidDecision | None = None


def _sequences(trace: list[dict]) -> list[Sequence]:
    seqs = []
    for entry in trace:
        for name in ("prompt_len", "output_len", "max_tokens"):
            if not isinstance(entry.get(name), int) or entry[name] < 1:
                raise ValueError(f"trace entry {entry.get('id')!r}: {name} must be a positive int")
        if entry["output_len"] > entry["max_tokens"]:
            raise ValueError(f"trace entry {entry['id']!r}: output_len exceeds max_tokens")
        seqs.append(
            Sequence(
                str(entry["id"]),
                str(entry["id"]),
                [0] * entry["prompt_len"],
                entry["prompt_len"],
                SamplingParams(max_tokens=entry["max_tokens"]),
                arrival_step=entry["arrival_step"],
                output_len=entry["output_len"],
            )
        )
    return sorted(seqs, key=lambda s: s.arrival_step)


def _summarize(result: ReplayResult, seqs: list[Sequence], num_steps: int) -> ReplayResult:
    result.requests = [
        RequestRecord(
            s.seq_id,
            s.arrival_step,
            s.prompt_len,
            s.num_output_tokens,
            s.finish_reason is not None,
            s.token_steps[0] - s.arrival_step if s.token_steps else None,
            [b - a for a, b in zip(s.token_steps, s.token_steps[1:])],
            s.num_preemptions,
        )
        for s in seqs
    ]
    ttfts = [r.ttft_steps for r in result.requests if r.ttft_steps is not None]
    itls = [gap for r in result.requests for gap in r.itl_steps]
    output_tokens = sum(s.num_output_tokens for s in seqs)
    result.totals = {
        "num_steps": num_steps,
        "finished": sum(r.finished for r in result.requests),
        "requests": len(seqs),
        "output_tokens": output_tokens,
        "tokens_per_step": output_tokens / max(1, num_steps),
        "mean_ttft_steps": statistics.fmean(ttfts) if ttfts else None,
        "mean_itl_steps": statistics.fmean(itls) if itls else None,
        "max_itl_steps": max(itls) if itls else None,
        "preemptions": sum(r.num_preemptions for r in result.requests),
        "peak_blocks_used": max((s.blocks_used for s in result.steps), default=0),
        "mean_batch_size": statistics.fmean(s.batch_size for s in result.steps) if result.steps else 0.0,
        "error": None
        if result.error is None
        else {"step": result.error.step, "rule": result.error.rule, "message": result.error.message},
    }
    return result


def _own_copy(policy, state: dict) -> dict:
    """What `policy` is handed: its own copy of the state, so whatever it does to it, validation sees the truth.
    Not for the reference (ours, it only reads) nor a policy marked `sends_state` (it encodes the state for
    another process, which never sees ours): copying 14,000 states was a fifth of a slow policy's grading."""
    if policy is reference_policy or getattr(policy, "sends_state", False):
        return state
    return copy.deepcopy(state)


def replay(policy, trace: list[dict], config: dict, step_cap: int = 10_000) -> ReplayResult:
    """Runs `policy` over `trace`; config = {max_num_seqs, max_num_batched_tokens, block_size, num_blocks}."""
    seqs = _sequences(trace)
    pool = BlockPool(config["num_blocks"], enable_prefix_caching=False)
    scheduler = Scheduler(pool, config["block_size"], config["max_num_seqs"], config["max_num_batched_tokens"], policy)
    result, pending, step = ReplayResult(), list(seqs), 0
    while step < step_cap and (pending or scheduler.has_unfinished()):
        while pending and pending[0].arrival_step <= step:
            scheduler.add(pending.pop(0))
        state = scheduler.build_state(step)
        try:
            reply = policy(_own_copy(policy, state))
        except Exception as exc:  # the learner's code failing is a verdict, not a crash of ours
            result.error = InvalidDecision(step, "policy-raised", f"{type(exc).__name__}: {exc}")
            break
        try:
            validate_decision(state, reply)
            out = scheduler.apply(step, reply)
        except InvalidDecision as exc:
            result.error = exc
            break
        for seq in scheduler.advance(out):
            seq.token_ids.append(0)
            seq.token_steps.append(step)
            if seq.num_output_tokens >= min(seq.output_len, seq.params.max_tokens):
                scheduler.finish(seq, "eos" if seq.output_len < seq.params.max_tokens else "length")
        result.steps.append(
            StepRecord(
                step,
                len(out.scheduled),
                sum(n for _, n in out.scheduled),
                pool.num_used,
                len(out.preempted),
                len(scheduler.running),
                len(scheduler.waiting),
            )
        )
        step += 1
    return _summarize(result, seqs, step)


def static_batching_replay(trace: list[dict], config: dict) -> ReplayResult:
    """The pre-paging baseline: each request reserves max_model_len tokens of contiguous KV; a batch is
    prefilled at once and runs until its longest request ends. config may give max_model_len."""
    seqs = _sequences(trace)
    max_len = config.get("max_model_len") or max(s.prompt_len + s.params.max_tokens for s in seqs)
    slots = min(config["max_num_seqs"], config["num_blocks"] * config["block_size"] // max_len)
    if slots < 1:
        raise ValueError(f"num_blocks x block_size holds fewer tokens than max_model_len ({max_len})")
    reserved_blocks = -(-max_len // config["block_size"])
    result, pending, step = ReplayResult(), list(seqs), 0
    while pending:
        step = max(step, pending[0].arrival_step)
        batch = [s for s in pending if s.arrival_step <= step][:slots]
        pending = [s for s in pending if s not in batch]
        active = list(batch)
        while active:
            for seq in active:
                seq.token_ids.append(0)
                seq.token_steps.append(step)
            tokens = sum(s.prompt_len if s.num_output_tokens == 1 else 1 for s in active)
            result.steps.append(
                StepRecord(step, len(active), tokens, reserved_blocks * len(batch), 0, len(batch), len(pending))
            )
            active = [s for s in active if s.num_output_tokens < min(s.output_len, s.params.max_tokens)]
            step += 1
        for seq in batch:
            seq.finish_reason = "length"
    return _summarize(result, seqs, step)
