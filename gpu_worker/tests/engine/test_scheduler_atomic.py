"""A decision is validated and applied all or nothing, with one block count for both.

The case that used to split them: a policy preempts a request that holds a cached block and, in the
same step, admits a request that hits that block. The preemption frees the block and the admission
takes it back, so it cannot also pay for a third request.
"""

import pytest

from gpu_worker.engine.block_pool import BlockPool
from gpu_worker.engine.policy import InvalidDecision, reference_policy, validate_decision
from gpu_worker.engine.sampling import SamplingParams
from gpu_worker.engine.scheduler import Scheduler
from gpu_worker.engine.sequence import Sequence

BLOCK_SIZE = 4


def _seq(name: str, prompt: list[int]) -> Sequence:
    return Sequence(name, name, list(prompt), len(prompt), SamplingParams(max_tokens=8))


def _scheduler_with_cached_holder():
    """A (running) holds 3 of 4 blocks, two of them cached full blocks that B's prompt starts with."""
    scheduler = Scheduler(BlockPool(4), BLOCK_SIZE, max_num_seqs=4, max_num_batched_tokens=64, policy=reference_policy)
    holder = _seq("A", [1] * 4 + [2] * 4 + [3])
    scheduler.add(holder)
    out = scheduler.schedule(0)
    for seq in scheduler.advance(out):
        seq.token_ids.append(9)
    scheduler.add(_seq("B", [1] * 4 + [2] * 4 + [5] * 4 + [6]))  # hits A's two cached blocks
    scheduler.add(_seq("C", [7] * 8))  # no hit: 2 fresh blocks
    return scheduler, holder


def _snapshot(scheduler: Scheduler) -> tuple:
    return (
        [s.seq_id for s in scheduler.running],
        [s.seq_id for s in scheduler.waiting],
        {
            s.seq_id: (list(s.block_table), s.num_computed_tokens, s.status)
            for s in (*scheduler.running, *scheduler.waiting)
        },
        scheduler.pool.num_free,
        [scheduler.pool.ref_count(b) for b in range(scheduler.pool.num_blocks)],
    )


def test_preempting_a_cached_holder_and_admitting_its_hit_is_refused_before_anything_changes():
    scheduler, holder = _scheduler_with_cached_holder()
    state = scheduler.build_state(1)
    assert state["free_blocks"] == 1 and state["running"][0]["freeable_blocks"] == 3
    assert [w["num_blocks"] for w in state["waiting"]] == [2, 0]  # B's two hits are held by A
    reply = {"schedule": {"B": 5, "C": 8}, "preempt": ["A"]}
    validate_decision(state, reply)  # the contract's own arithmetic counts A's cached blocks twice
    assert scheduler.block_budget(reply) == (6, 4)  # B: 2 hits taken back + 2 new; C: 2 new; 1 + 3 freed
    before = _snapshot(scheduler)
    with pytest.raises(InvalidDecision) as refused:
        scheduler.apply(1, reply)
    assert refused.value.rule == "out-of-blocks" and "6 blocks, 4 are free" in refused.value.message
    assert _snapshot(scheduler) == before  # A still runs with its blocks: nothing was preempted
    assert holder in scheduler.running and len(holder.block_table) == 3


def test_the_same_preemption_with_a_decision_that_fits_is_applied_whole():
    scheduler, holder = _scheduler_with_cached_holder()
    state = scheduler.build_state(1)
    reply = {"schedule": {"B": 5}, "preempt": ["A"]}
    validate_decision(state, reply)
    needed, available = scheduler.block_budget(reply)
    out = scheduler.apply(1, reply)
    assert [seq.seq_id for seq, _ in out.scheduled] == ["B"] and out.preempted == [holder]
    assert out.prefix_hit_tokens == 8  # B found A's two blocks in the cache after A gave them up
    assert scheduler.pool.num_free == available - needed == 0
