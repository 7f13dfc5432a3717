"""Double binary tree all-reduce (as in NCCL): each half of the tensor is reduced up one
binary tree and broadcast back down it, in pipelined pieces, on `Comm` point-to-point calls.

Why two trees: in one binary tree about half the ranks are leaves, which only send their
data up once and receive it back once, while inner ranks talk to a parent and two
children; the leaves' links sit half idle and the inner ranks carry the load. The second
tree is the first mirrored (rank r sits where rank N-1-r sat), so ranks that are leaves
in one tree are inner in the other (all of them when N is even). Each tree carries half
the data, every rank does about the same work, and all links are used: bandwidth close to
the ring's, with only 2*log2(N) hops of latency instead of the ring's 2(N-1).

Small messages take one tree: there bandwidth does not matter, and a second tree only
doubles the number of messages (NCCL likewise runs small messages on fewer channels)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from gpu_worker.collectives.chunks import chunk_bounds, flat_view

DEFAULT_PIECE_BYTES = 4 * 1024 * 1024  # per-message cost is high on CPU/gloo: few, large pieces
DOUBLE_TREE_MIN_BYTES = 64 * 1024  # below this, `double=None` uses a single tree


@dataclass(frozen=True)
class BinaryTree:
    """One rank's place in a heap-shaped binary tree (position p has children 2p+1, 2p+2);
    `mirrored` puts rank r at position N-1-r."""

    world_size: int
    rank: int
    mirrored: bool = False

    def __post_init__(self):
        if not 0 <= self.rank < self.world_size:
            raise ValueError(f"rank must be in [0, world_size), got rank={self.rank}, world_size={self.world_size}")

    def _rank_at(self, position: int) -> int:
        return self.world_size - 1 - position if self.mirrored else position

    @property
    def position(self) -> int:
        return self.world_size - 1 - self.rank if self.mirrored else self.rank

    @property
    def parent(self) -> int | None:
        return None if self.position == 0 else self._rank_at((self.position - 1) // 2)

    @property
    def children(self) -> list[int]:
        return [self._rank_at(p) for p in (2 * self.position + 1, 2 * self.position + 2) if p < self.world_size]

    @property
    def root(self) -> int:
        return self._rank_at(0)


def _pieces(start: int, end: int, piece_elems: int) -> list[tuple[int, int]]:
    return [(lo, min(lo + piece_elems, end)) for lo in range(start, end, piece_elems)]


def tree_all_reduce(
    tensor: torch.Tensor, comm, double: bool | None = None, piece_bytes: int = DEFAULT_PIECE_BYTES
) -> None:
    """In-place SUM across ranks over a double binary tree (`double=False`: one tree;
    `None`: two trees from DOUBLE_TREE_MIN_BYTES up, one below).

    Reduce phase: each rank adds its children's pieces into its own and sends the piece
    up; broadcast phase: the root's result flows back down. Pieces of `piece_bytes` keep
    every level of the tree busy at once (pipelining); tag t keeps tree t's messages apart on
    gloo (NCCL ignores tags: there the lock-step order below keeps them apart)."""
    flat = flat_view(tensor)  # [K]
    n = comm.world_size
    if n == 1 or flat.numel() == 0:
        return
    if piece_bytes < 1:
        raise ValueError(f"piece_bytes must be >= 1, got {piece_bytes}")
    piece_elems = max(1, piece_bytes // flat.element_size())
    if double is None:
        double = flat.numel() * flat.element_size() >= DOUBLE_TREE_MIN_BYTES
    count = 2 if double else 1
    plans = []  # (tag, tree, segment start, pieces)
    for tag in range(count):
        start, end = chunk_bounds(flat.numel(), count, tag)
        if end > start:
            plans.append((tag, BinaryTree(n, comm.rank, mirrored=bool(tag)), start, _pieces(start, end, piece_elems)))

    # Lock-step schedule, one `comm.exchange` group per step on every rank: NCCL matches a
    # pair's messages in posting order and runs each rank's groups in order, so every
    # matching send and receive must sit in the same step on both sides. Reduce: a rank of
    # height h (leaves 0) sends piece j up at step j + h; its parent receives it in that
    # same step, and sends its own sum of piece j later, at j + its height.
    heights = {tag: _heights(tree) for tag, tree, _, _ in plans}
    buffers = {
        (tag, child): torch.empty(pieces[-1][1] - start, dtype=flat.dtype, device=flat.device)  # [segment]
        for tag, tree, start, pieces in plans
        for child in tree.children
    }
    top = max(heights[tag][tree.rank] for tag, tree, _, _ in plans)
    rounds = max(len(pieces) for *_, pieces in plans)
    for step in range(rounds + top):
        sends, recvs, adds = [], [], []
        for tag, tree, start, pieces in plans:
            index = step - heights[tag][tree.rank]
            if tree.parent is not None and 0 <= index < len(pieces):
                lo, hi = pieces[index]
                sends.append((flat[lo:hi], tree.parent, tag))
            for child in tree.children:
                index = step - heights[tag][child]
                if 0 <= index < len(pieces):
                    lo, hi = pieces[index]
                    recvs.append((buffers[tag, child][lo - start : hi - start], child, tag))
                    adds.append((lo, hi, buffers[tag, child][lo - start : hi - start]))
        comm.exchange(sends=sends, recvs=recvs)
        for lo, hi, incoming in adds:
            flat[lo:hi].add_(incoming)

    # Broadcast: a rank at depth d (root 0) receives piece j at step j + d - 1 and forwards it
    # to its children at step j + d, where they receive it.
    depths = {tag: _depths(tree) for tag, tree, _, _ in plans}
    deepest = max(max(d.values()) for d in depths.values())
    for step in range(rounds + deepest):
        sends, recvs = [], []
        for tag, tree, _start, pieces in plans:
            depth = depths[tag][tree.rank]
            index = step - depth + 1
            if tree.parent is not None and 0 <= index < len(pieces):
                lo, hi = pieces[index]
                recvs.append((flat[lo:hi], tree.parent, tag))
            index = step - depth
            if 0 <= index < len(pieces):
                lo, hi = pieces[index]
                sends.extend((flat[lo:hi], child, tag) for child in tree.children)
        comm.exchange(sends=sends, recvs=recvs)


def _heights(tree: BinaryTree) -> dict[int, int]:
    """Every rank's height in this tree's shape: 0 for a leaf, 1 + the tallest child otherwise."""
    heights = {}
    for position in reversed(range(tree.world_size)):
        rank = tree._rank_at(position)
        children = [p for p in (2 * position + 1, 2 * position + 2) if p < tree.world_size]
        heights[rank] = 1 + max(heights[tree._rank_at(p)] for p in children) if children else 0
    return heights


def _depths(tree: BinaryTree) -> dict[int, int]:
    """Every rank's distance from the root."""
    return {tree._rank_at(position): (position + 1).bit_length() - 1 for position in range(tree.world_size)}
