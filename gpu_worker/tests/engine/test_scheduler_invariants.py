"""Random workloads through the model-free scheduler with a fake KV store that records what each slot holds.

After every step: reference counts match the block tables, a block is free exactly when unreferenced, and
every computed position of every running sequence reads its own token, position and salt, through prefix
hits, chunked prefill, copy-on-write forks, recompute and swap. At the end every block is back in the pool.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_worker.engine.block_pool import BlockPool
from gpu_worker.engine.policy import reference_policy
from gpu_worker.engine.sampling import SamplingParams
from gpu_worker.engine.scheduler import Scheduler
from gpu_worker.engine.sequence import Sequence

BLOCK_SIZE = 4
PREFIXES = [[1] * 8, [2] * 8, [1] * 4 + [3] * 4]  # the third shares its first block with the first


class FakeKV:
    def __init__(self):
        self.gpu: dict[tuple[int, int], tuple] = {}
        self.cpu: dict[tuple[int, int], tuple] = {}

    def write(self, seq: Sequence, first: int, count: int) -> None:
        for pos in range(first, first + count):
            self.gpu[seq.block_table[pos // BLOCK_SIZE], pos % BLOCK_SIZE] = (seq.token_ids[pos], pos, seq.cache_salt)

    def copy_block(self, src, dst):
        for offset in range(BLOCK_SIZE):
            if (src, offset) in self.gpu:
                self.gpu[dst, offset] = self.gpu[src, offset]

    def swap_out(self, gpu_blocks, cpu_blocks):
        for g, c in zip(gpu_blocks, cpu_blocks):
            for offset in range(BLOCK_SIZE):
                self.cpu[c, offset] = self.gpu.get((g, offset))

    def swap_in(self, cpu_blocks, gpu_blocks):
        for c, g in zip(cpu_blocks, gpu_blocks):
            for offset in range(BLOCK_SIZE):
                self.gpu[g, offset] = self.cpu[c, offset]


requests = st.lists(
    st.tuples(
        st.integers(0, 2), st.integers(1, 12), st.sampled_from([None, "a"]), st.integers(1, 10), st.integers(1, 3)
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(requests, st.integers(12, 24), st.sampled_from(["recompute", "swap"]), st.integers(0, 1000))
def test_scheduler_keeps_kv_contents_and_pool_consistent(reqs, num_blocks, mode, token_seed):
    pool, kv = BlockPool(num_blocks), FakeKV()
    scheduler = Scheduler(
        pool,
        BLOCK_SIZE,
        max_num_seqs=4,
        max_num_batched_tokens=12,
        policy=reference_policy,
        preemption_mode=mode,
        num_cpu_blocks=8,
        kv_ops=kv,
    )
    for i, (prefix, suffix, salt, outputs, n) in enumerate(reqs):
        prompt = PREFIXES[prefix] + [(token_seed + i * 7 + j) % 50 + 10 for j in range(suffix)]
        scheduler.add(
            Sequence(
                f"r{i}",
                f"r{i}",
                prompt,
                len(prompt),
                SamplingParams(n=n, max_tokens=outputs),
                cache_salt=salt,
                needs_fork=n > 1,
            )
        )
    for step in range(2000):
        if not scheduler.has_unfinished():
            break
        out = scheduler.schedule(step)
        for seq, count in out.scheduled:
            kv.write(seq, seq.num_computed_tokens, count)
        for seq in scheduler.advance(out):
            branches = [seq]
            if seq.needs_fork:
                seq.needs_fork = False
                branches += [
                    Sequence(
                        f"{seq.seq_id}.{b}",
                        seq.request_id,
                        list(seq.token_ids),
                        seq.prompt_len,
                        seq.params,
                        cache_salt=seq.cache_salt,
                        branch=b,
                        block_hashes=list(seq.block_hashes),
                    )
                    for b in range(1, seq.params.n)
                ]
                scheduler.fork(seq, branches[1:])
            for branch in branches:
                branch.token_ids.append((step * 31 + branch.branch + len(branch.token_ids)) % 50 + 60)
                if branch.num_output_tokens >= branch.params.max_tokens:
                    scheduler.finish(branch, "length")
        tables = [b for seq in scheduler.running for b in seq.block_table]
        for block in range(num_blocks):
            assert pool.ref_count(block) == tables.count(block)
            assert (block in pool.free_queue) == (pool.ref_count(block) == 0)
        for seq in scheduler.running:
            for pos in range(seq.num_computed_tokens):
                assert kv.gpu[seq.block_table[pos // BLOCK_SIZE], pos % BLOCK_SIZE] == (
                    seq.token_ids[pos],
                    pos,
                    seq.cache_salt,
                ), f"{seq.seq_id} reads a wrong slot at {pos}"
    assert not scheduler.has_unfinished()
    assert pool.num_free == num_blocks and len(scheduler.cpu_free) == 8
