"""The shapes the algorithms rely on, checked in process: the two binary trees of the double
tree, the broadcast algorithm choice, and ring segmenting."""

import pytest
import torch

from gpu_worker.collectives import broadcast
from gpu_worker.collectives.ring import _segments
from gpu_worker.collectives.tree import BinaryTree


@pytest.mark.parametrize("world_size", [2, 3, 4, 5, 8])
@pytest.mark.parametrize("mirrored", [False, True])
def test_each_tree_spans_every_rank_once(world_size, mirrored):
    trees = [BinaryTree(world_size, rank, mirrored) for rank in range(world_size)]
    assert sum(tree.parent is None for tree in trees) == 1
    for tree in trees:
        for child in tree.children:
            assert trees[child].parent == tree.rank
    # every non-root rank is some rank's child exactly once
    children = sorted(child for tree in trees for child in tree.children)
    assert children == sorted(rank for rank in range(world_size) if trees[rank].parent is not None)


@pytest.mark.parametrize("world_size", [2, 4, 6, 8])
def test_leaves_of_one_tree_are_inner_ranks_of_the_other_when_n_is_even(world_size):
    for rank in range(world_size):
        first, second = BinaryTree(world_size, rank), BinaryTree(world_size, rank, mirrored=True)
        assert bool(first.children) != bool(second.children)


def test_broadcast_auto_picks_binomial_for_small_and_chain_for_large():
    small = torch.zeros(broadcast.CHAIN_ABOVE_BYTES // 4)
    large = torch.zeros(broadcast.CHAIN_ABOVE_BYTES // 4 + 1)
    assert broadcast._algorithm(small, "auto") == "binomial"
    assert broadcast._algorithm(large, "auto") == "chain"
    with pytest.raises(ValueError, match="algorithm"):
        broadcast._algorithm(small, "ring")


def test_ring_segments_cover_a_chunk_exactly():
    assert _segments(5, 5, 4, 16) == []
    pieces = _segments(3, 1003, 4, 1024)  # 1000 fp32 = 4000 B -> 4 segments of 250
    assert pieces[0][0] == 3 and pieces[-1][1] == 1003 and len(pieces) == 4
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
