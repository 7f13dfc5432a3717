"""Per-step and per-request measurements the modules plot and the benchmark aggregates."""

from dataclasses import dataclass

from .sequence import Sequence


@dataclass
class StepMetrics:
    step: int
    duration_s: float
    batch_size: int  # sequences scheduled
    num_tokens: int  # tokens scheduled
    num_prefill_tokens: int
    kv_blocks_used: int
    kv_tokens_held: int  # tokens in used blocks, each shared block counted once
    kv_tokens_logical: int  # tokens summed over sequences, as if nothing were shared
    num_running: int
    num_waiting: int
    num_preemptions: int
    prefix_hit_tokens: int


@dataclass
class RequestMetrics:
    seq_id: str
    prompt_len: int
    num_output_tokens: int
    ttft_s: float | None
    itl_s: list[float]
    ttft_steps: int | None
    itl_steps: list[int]
    num_preemptions: int
    num_cached_tokens: int
    finish_reason: str | None


def request_metrics(seq: Sequence) -> RequestMetrics:
    times, steps = seq.token_times, seq.token_steps
    return RequestMetrics(
        seq_id=seq.seq_id,
        prompt_len=seq.prompt_len,
        num_output_tokens=seq.num_output_tokens,
        ttft_s=times[0] - seq.arrival_time if times else None,
        itl_s=[b - a for a, b in zip(times, times[1:])],
        ttft_steps=steps[0] - seq.arrival_step if steps else None,
        itl_steps=[b - a for a, b in zip(steps, steps[1:])],
        num_preemptions=seq.num_preemptions,
        num_cached_tokens=seq.num_cached_tokens,
        finish_reason=seq.finish_reason,
    )


def kv_tokens(seqs: list[Sequence], block_size: int) -> tuple[int, int]:
    """(tokens held in distinct blocks, tokens summed per sequence) over the sequences' computed tokens."""
    full: set[int] = set()  # blocks some sequence has filled
    partial: dict[int, int] = {}  # a sequence's last, part-filled block: the most tokens any holder put there
    logical = 0
    for seq in seqs:
        computed = seq.num_computed_tokens
        logical += computed
        count, rest = divmod(computed, block_size)
        full.update(seq.block_table[:count])
        if rest and count < len(seq.block_table):
            block_id = seq.block_table[count]
            partial[block_id] = max(partial.get(block_id, 0), rest)
    return block_size * len(full) + sum(n for block_id, n in partial.items() if block_id not in full), logical
