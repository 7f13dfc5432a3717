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


def tree_all_reduce(tensor: torch.Tensor, comm, double: bool | None = None,
                    piece_bytes: int = DEFAULT_PIECE_BYTES) -> None:
    """In-place SUM across ranks over a double binary tree (`double=False`: one tree;
    `None`: two trees from DOUBLE_TREE_MIN_BYTES up, one below).

    Reduce phase: each rank adds its children's pieces into its own and sends the piece
    up; broadcast phase: the root's result flows back down. Pieces of `piece_bytes` keep
    every level of the tree busy at once (pipelining); tag t keeps tree t's messages apart."""
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

    # Post every receive up front: the children's pieces (reduce phase) into buffers, then
    # the parent's finished pieces (broadcast phase) straight into place. Receiving into
    # pieces we are still adding into and sending up is safe: the parent sends piece j
    # down only after it has received our piece j. (Children first, then the parent: the
    # order a peer sends in, for transports that match messages in order and ignore tags.)
    incoming = {}  # (tag, child) -> (buffer, handles per piece)
    for tag, tree, start, pieces in plans:
        for child in tree.children:
            buffer = torch.empty(pieces[-1][1] - start, dtype=flat.dtype, device=flat.device)  # [segment]
            incoming[tag, child] = (buffer, [comm.irecv(buffer[lo - start:hi - start], child, tag=tag)
                                             for lo, hi in pieces])
    from_parent = {tag: [comm.irecv(flat[lo:hi], tree.parent, tag=tag) for lo, hi in pieces]
                   for tag, tree, start, pieces in plans if tree.parent is not None}
    rounds = max(len(pieces) for *_, pieces in plans)

    # Reduce phase: add the children's piece into ours, send the sum up.
    sends = []
    for index in range(rounds):
        for tag, tree, start, pieces in plans:
            if index >= len(pieces):
                continue
            lo, hi = pieces[index]
            for child in tree.children:
                buffer, handles = incoming[tag, child]
                handles[index].wait()
                flat[lo:hi].add_(buffer[lo - start:hi - start])
            if tree.parent is not None:
                sends.append(comm.isend(flat[lo:hi], tree.parent, tag=tag))

    # Broadcast phase: wait for each finished piece from the parent, pass it to the children.
    for index in range(rounds):
        for tag, tree, start, pieces in plans:
            if index >= len(pieces):
                continue
            lo, hi = pieces[index]
            if tag in from_parent:
                from_parent[tag][index].wait()
            sends.extend(comm.isend(flat[lo:hi], child, tag=tag) for child in tree.children)
    for handle in sends:
        handle.wait()
