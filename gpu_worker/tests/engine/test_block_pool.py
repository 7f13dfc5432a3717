"""Block pool: reference counts, prefix-cache hits only for identical tokens and salt, LRU lazy eviction,
and invariants under random operation sequences (hypothesis)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_worker.engine.block_pool import BlockPool, hash_block


def test_hash_chain_depends_on_parent_tokens_and_salt():
    first = hash_block(None, (1, 2))
    assert hash_block(None, (1, 2)) == first
    assert hash_block(None, (1, 3)) != first
    assert hash_block(None, (1, 2), "tenant-a") != first
    assert hash_block(first, (5, 6)) != hash_block(hash_block(None, (9, 9)), (5, 6))


def test_freed_cached_blocks_are_evicted_least_recently_freed_first():
    pool = BlockPool(3)
    a, b, c = pool.allocate(), pool.allocate(), pool.allocate()
    for block, tokens in ((a, (1,)), (b, (2,)), (c, (3,))):
        pool.register(block, hash_block(None, tokens), tokens)
    pool.free([b])
    pool.free([a])
    pool.free([c])
    assert pool.num_free == 3 and pool.lookup(hash_block(None, (1,)), (1,)) == a
    assert pool.allocate() == b  # freed first, evicted first
    assert pool.lookup(hash_block(None, (2,)), (2,)) is None
    assert pool.lookup(hash_block(None, (3,)), (3,)) == c
    pool.acquire(c)  # a hit takes a free cached block back out of the free queue
    assert pool.num_free == 1 and pool.ref_count(c) == 1


def test_lookup_confirms_tokens_on_hash_match():
    pool = BlockPool(2)
    block = pool.allocate()
    pool.register(block, b"h" * 32, (1, 2, 3))
    assert pool.lookup(b"h" * 32, (1, 2, 4)) is None  # a colliding hash with other tokens is a miss
    assert pool.lookup(b"h" * 32, (1, 2, 3)) == block


def test_double_free_and_zero_blocks_fail():
    pool = BlockPool(1)
    block = pool.allocate()
    pool.free([block])
    with pytest.raises(RuntimeError, match="reference count"):
        pool.free([block])
    with pytest.raises(ValueError, match="num_blocks"):
        BlockPool(0)


operations = st.lists(
    st.tuples(
        st.sampled_from(["alloc", "share", "free", "hit"]), st.integers(0, 50), st.sampled_from([None, "a", "b"])
    ),
    max_size=80,
)


@settings(max_examples=150, deadline=None)
@given(operations)
def test_invariants_under_random_operations(ops):
    pool = BlockPool(6)
    held: list[int] = []  # one entry per reference we hold
    contents: dict[int, tuple] = {}  # block -> (tokens, salt) it was registered with
    for op, value, salt in ops:
        tokens = (value % 4, value % 3)
        if op == "alloc" and pool.num_free:
            block = pool.allocate()
            held.append(block)
            block_hash = hash_block(None, tokens, salt)
            pool.register(block, block_hash, tokens)
            if pool.lookup(block_hash, tokens) == block:
                contents[block] = (tokens, salt)
        elif op == "share" and held:
            pool.acquire(held[value % len(held)])
            held.append(held[value % len(held)])
        elif op == "free" and held:
            pool.free([held.pop(value % len(held))])
        elif op == "hit":
            block = pool.lookup(hash_block(None, tokens, salt), tokens)
            if block is not None:
                assert contents[block] == (tokens, salt), "a hit must carry identical tokens and salt"
                pool.acquire(block)
                held.append(block)
        refs = [pool.ref_count(b) for b in range(pool.num_blocks)]
        assert min(refs) >= 0
        for block in range(pool.num_blocks):
            assert (block in pool.free_queue) == (refs[block] == 0), "free exactly when unreferenced"
            assert refs[block] == held.count(block)
    pool.free(held)
    assert pool.num_free == pool.num_blocks
