"""Model-free scheduler core: builds the policy's state, validates and applies its decision on the block pool.

The engine runs the model on what it returns; the scheduler lab's replay drives the same class with no model.
"""

import copy
from collections import Counter, deque
from dataclasses import dataclass, field

from .block_pool import BlockPool
from .policy import InvalidDecision, reference_policy, validate_decision
from .sequence import Sequence, Status


class NoKVOps:
    """Block copies and swaps without tensors (the model-free replay)."""

    def copy_block(self, src: int, dst: int) -> None: ...
    def swap_out(self, gpu_blocks: list[int], cpu_blocks: list[int]) -> None: ...
    def swap_in(self, cpu_blocks: list[int], gpu_blocks: list[int]) -> None: ...


@dataclass
class SchedulerOutput:
    scheduled: list[tuple[Sequence, int]] = field(default_factory=list)  # (sequence, tokens this step)
    preempted: list[Sequence] = field(default_factory=list)
    prefix_hit_tokens: int = 0
    num_swapped_out: int = 0


class Scheduler:
    def __init__(
        self,
        pool: BlockPool,
        block_size: int,
        max_num_seqs: int,
        max_num_batched_tokens: int,
        policy,
        preemption_mode: str = "recompute",
        num_cpu_blocks: int = 0,
        kv_ops=None,
    ):
        self.pool, self.block_size, self.policy = pool, block_size, policy
        self.max_num_seqs, self.max_num_batched_tokens = max_num_seqs, max_num_batched_tokens
        self.preemption_mode = preemption_mode
        self.cpu_free = list(range(num_cpu_blocks))
        self.kv_ops = kv_ops or NoKVOps()
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []
        self._probes: dict[str, list[int]] = {}
        self.num_cow_copies = 0
        self.num_swapped_out = 0

    def add(self, seq: Sequence) -> None:
        seq.status = Status.WAITING
        self.waiting.append(seq)

    def has_unfinished(self) -> bool:
        return bool(self.waiting or self.running)

    def _probe_prefix(self, seq: Sequence) -> list[int]:
        """Cached blocks matching the sequence's leading full blocks (one token is always left to compute)."""
        hits = []
        hashes = seq.full_block_hashes(self.block_size, seq.num_tokens - 1) if self.pool.enable_prefix_caching else []
        for index, block_hash in enumerate(hashes):
            block_id = self.pool.lookup(block_hash, seq.block_tokens(index, self.block_size))
            if block_id is None:
                break
            hits.append(block_id)
        return hits

    def _request_view(self, seq: Sequence, computed: int, num_blocks: int) -> dict:
        return {
            "id": seq.seq_id,
            "prompt_len": seq.prompt_len,
            "num_output_tokens": seq.num_output_tokens,
            "num_computed_tokens": computed,
            "max_tokens": seq.params.max_tokens,
            "arrival_step": seq.arrival_step,
            "num_blocks": num_blocks,
        }

    def _cow_blocks(self, seq: Sequence) -> int:
        index = seq.num_computed_tokens // self.block_size
        partial = seq.num_computed_tokens % self.block_size and index < len(seq.block_table)
        return int(bool(partial) and self.pool.ref_count(seq.block_table[index]) > 1)

    def build_state(self, step: int) -> dict:
        self._probes = {}
        waiting = []
        for seq in self.waiting:
            if seq.swapped_blocks is not None:
                waiting.append(self._request_view(seq, seq.num_computed_tokens, 0))
                continue
            hits = self._probe_prefix(seq)
            self._probes[seq.seq_id] = hits
            # A hit nobody holds sits in the free queue: taking it costs a free block, so it is not counted
            # as held, and the contract's formula charges for it.
            shared = sum(self.pool.ref_count(b) > 0 for b in hits)
            waiting.append(self._request_view(seq, len(hits) * self.block_size, shared))
        running = []
        for seq in self.running:
            view = self._request_view(seq, seq.num_computed_tokens, len(seq.block_table))
            view["cow_blocks"] = self._cow_blocks(seq)
            view["freeable_blocks"] = sum(self.pool.ref_count(b) == 1 for b in seq.block_table)
            running.append(view)
        config = {
            "max_num_seqs": self.max_num_seqs,
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "block_size": self.block_size,
            "num_blocks": self.pool.num_blocks,
        }
        return {
            "config": config,
            "step": step,
            "free_blocks": self.pool.num_free,
            "waiting": waiting,
            "running": running,
        }

    def schedule(self, step: int) -> SchedulerOutput:
        state = self.build_state(step)
        # a plugged-in policy gets its own copy, so whatever it does to the state, validation sees the truth
        reply = self.policy(state if self.policy is reference_policy else copy.deepcopy(state))
        validate_decision(state, reply)
        return self.apply(step, reply)

    def block_budget(self, reply: dict) -> tuple[int, int]:
        """(free blocks the decision takes, free blocks once its preemptions are done), counted exactly as
        `apply` spends them: a cached block that a preemption frees and an admission hits again is freed
        and taken back, so it counts on both sides. `reply` must already have passed validate_decision."""
        by_id = {s.seq_id: s for s in (*self.waiting, *self.running)}
        released = Counter(b for i in reply.get("preempt", []) for b in by_id[str(i)].block_table)

        def held_after(block_id: int) -> int:
            return self.pool.ref_count(block_id) - released[block_id]

        available = self.pool.num_free + sum(held_after(b) == 0 for b in released)
        needed, reclaimed = 0, set()
        for req_id, num_tokens in reply["schedule"].items():
            seq = by_id[str(req_id)]
            if seq.status == Status.WAITING and seq.swapped_blocks is not None:
                have, computed = len(seq.swapped_blocks), seq.num_computed_tokens
                needed += have  # swapped back in to fresh blocks
            elif seq.status == Status.WAITING:
                hits = self._probes.get(seq.seq_id, [])
                fresh = {b for b in hits if held_after(b) == 0} - reclaimed  # pulled out of the free queue
                needed += len(fresh)
                reclaimed |= fresh
                have, computed = len(hits), len(hits) * self.block_size
            else:
                have, computed = len(seq.block_table), seq.num_computed_tokens
                index = computed // self.block_size
                needed += int(
                    bool(computed % self.block_size) and index < have and held_after(seq.block_table[index]) > 1
                )  # copy-on-write
            needed += max(0, -(-(computed + num_tokens) // self.block_size) - have)
        return needed, available

    def _preempt(self, seq: Sequence, out: SchedulerOutput) -> None:
        self.running.remove(seq)
        num_blocks = len(seq.block_table)
        if self.preemption_mode == "swap" and 0 < num_blocks <= len(self.cpu_free):
            cpu_blocks = [self.cpu_free.pop() for _ in range(num_blocks)]
            self.kv_ops.swap_out(seq.block_table, cpu_blocks)
            seq.swapped_blocks = cpu_blocks
            out.num_swapped_out += 1
            self.num_swapped_out += 1
        else:
            seq.num_computed_tokens = 0
            seq.num_registered_blocks = 0
        self.pool.free(seq.block_table)
        seq.block_table = []
        seq.status = Status.WAITING
        seq.num_preemptions += 1
        self.waiting.appendleft(seq)
        out.preempted.append(seq)

    def apply(self, step: int, reply: dict) -> SchedulerOutput:
        """Carry out a validated decision, all or nothing: the block count is checked before anything changes."""
        needed, available = self.block_budget(reply)
        if needed > available:
            raise InvalidDecision(
                step,
                "out-of-blocks",
                f"the decision takes {needed} blocks, {available} are free "
                "after its preemptions (a cached block a preemption frees and an admitted "
                "request hits is taken back)",
            )
        out = SchedulerOutput()
        by_id = {s.seq_id: s for s in (*self.waiting, *self.running)}
        for req_id in reply.get("preempt", []):
            self._preempt(by_id[str(req_id)], out)
        scheduled = [(by_id[str(i)], n) for i, n in reply["schedule"].items()]
        admitted = [seq for seq, _ in scheduled if seq.status == Status.WAITING]
        for seq in admitted:  # take every cache hit before any allocation can evict one
            if seq.swapped_blocks is None:
                hits = self._probes.get(seq.seq_id, [])
                for block_id in hits:
                    self.pool.acquire(block_id)
                seq.block_table = list(hits)
                seq.num_registered_blocks = len(hits)
                seq.num_computed_tokens = len(hits) * self.block_size
                out.prefix_hit_tokens += seq.num_computed_tokens
                if seq.num_preemptions == 0:
                    seq.num_cached_tokens = seq.num_computed_tokens
        for seq in admitted:
            self.waiting.remove(seq)
            seq.status = Status.RUNNING
            self.running.append(seq)
            if seq.swapped_blocks is not None:
                gpu_blocks = self._allocate(step, len(seq.swapped_blocks))
                self.kv_ops.swap_in(seq.swapped_blocks, gpu_blocks)
                self.cpu_free.extend(seq.swapped_blocks)
                seq.block_table, seq.swapped_blocks = gpu_blocks, None
                seq.num_registered_blocks = 0  # fresh blocks: offer them to the prefix cache again
        for seq, num_tokens in scheduled:
            if self._cow_blocks(seq):
                index = seq.num_computed_tokens // self.block_size
                old = seq.block_table[index]
                new = self._allocate(step, 1)[0]
                self.kv_ops.copy_block(old, new)
                self.num_cow_copies += 1
                self.pool.free([old])
                seq.block_table[index] = new
            total = -(-(seq.num_computed_tokens + num_tokens) // self.block_size)
            seq.block_table.extend(self._allocate(step, total - len(seq.block_table)))
            out.scheduled.append((seq, num_tokens))
        return out

    def _allocate(self, step: int, count: int) -> list[int]:
        if count > self.pool.num_free:
            raise InvalidDecision(step, "out-of-blocks", f"needs {count} more blocks, {self.pool.num_free} are free")
        return [self.pool.allocate() for _ in range(max(0, count))]

    def advance(self, out: SchedulerOutput) -> list[Sequence]:
        """Marks the scheduled tokens computed, caches newly full blocks; returns the sequences that sample."""
        sampling = []
        for seq, num_tokens in out.scheduled:
            seq.num_computed_tokens += num_tokens
            full = seq.num_computed_tokens // self.block_size
            if self.pool.enable_prefix_caching and full > seq.num_registered_blocks:
                hashes = seq.full_block_hashes(self.block_size, seq.num_computed_tokens)
                for index in range(seq.num_registered_blocks, full):
                    self.pool.register(seq.block_table[index], hashes[index], seq.block_tokens(index, self.block_size))
            seq.num_registered_blocks = full
            if seq.num_computed_tokens == seq.num_tokens:
                sampling.append(seq)
        return sampling

    def fork(self, parent: Sequence, children: list[Sequence]) -> None:
        """Children share the parent's blocks (copy-on-write) and run right after it."""
        position = self.running.index(parent) + 1
        for child in children:
            for block_id in parent.block_table:
                self.pool.acquire(block_id)
            child.block_table = list(parent.block_table)
            child.num_computed_tokens = parent.num_computed_tokens
            child.num_registered_blocks = parent.num_registered_blocks
            child.status = Status.RUNNING
        self.running[position:position] = children

    def finish(self, seq: Sequence, reason: str) -> None:
        self.running.remove(seq)
        self.pool.free(seq.block_table)
        seq.block_table = []
        seq.status, seq.finish_reason = Status.FINISHED, reason
