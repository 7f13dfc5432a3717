"""Broadcast and reduce (SUM, to a root) on `Comm` point-to-point calls: a binomial tree
(log2 N hops, for small messages) or a pipelined chain (about one message time, for large)."""

from __future__ import annotations

import torch

from gpu_worker.collectives.chunks import flat_view

DEFAULT_PIECE_BYTES = 1024 * 1024
CHAIN_ABOVE_BYTES = 64 * 1024  # "auto" picks the chain for messages larger than this
ALGORITHMS = ("auto", "binomial", "chain")


def _algorithm(flat: torch.Tensor, algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    if algorithm == "auto":
        return "chain" if flat.numel() * flat.element_size() > CHAIN_ABOVE_BYTES else "binomial"
    return algorithm


def _pieces(numel: int, element_size: int, piece_bytes: int) -> list[tuple[int, int]]:
    step = max(1, piece_bytes // element_size)
    return [(lo, min(lo + step, numel)) for lo in range(0, numel, step)]


def broadcast(
    tensor: torch.Tensor, root: int, comm, algorithm: str = "auto", piece_bytes: int = DEFAULT_PIECE_BYTES
) -> None:
    """Copy `root`'s tensor into every rank's tensor, in place."""
    flat = flat_view(tensor)  # [K]
    kind = _algorithm(flat, algorithm)
    n = comm.world_size
    if n == 1 or flat.numel() == 0:
        return
    virtual = (comm.rank - root) % n  # position relative to the root
    if kind == "binomial":
        # Round with distance m (largest first): ranks at multiples of 2m pass the tensor m on.
        for mask in reversed(_powers_below(n)):
            if virtual % (2 * mask) == 0 and virtual + mask < n:
                comm.exchange(sends=[(flat, (virtual + mask + root) % n)])
            elif virtual % (2 * mask) == mask:
                comm.exchange(recvs=[(flat, (virtual - mask + root) % n)])
        return
    # Chain root -> root+1 -> ...: position p receives piece j at step j + p - 1, forwards it at j + p.
    previous, following = (comm.rank - 1) % n, (comm.rank + 1) % n
    pieces = _pieces(flat.numel(), flat.element_size(), piece_bytes)
    _chain(flat, None, pieces, virtual, n, previous, following, comm)


def reduce(
    tensor: torch.Tensor, root: int, comm, algorithm: str = "auto", piece_bytes: int = DEFAULT_PIECE_BYTES
) -> None:
    """Sum every rank's tensor into `root`'s tensor, in place. Other ranks' tensors are
    used as accumulators and hold partial sums afterwards (as the library allows)."""
    flat = flat_view(tensor)  # [K]
    kind = _algorithm(flat, algorithm)
    n = comm.world_size
    if n == 1 or flat.numel() == 0:
        return
    if kind == "binomial":
        virtual = (comm.rank - root) % n
        incoming = torch.empty_like(flat)  # [K]
        # Round with distance m (smallest first): ranks at odd multiples of m hand their sum down.
        for mask in _powers_below(n):
            if virtual % (2 * mask) == mask:
                comm.exchange(sends=[(flat, (virtual - mask + root) % n)])
                return
            if virtual + mask < n:
                comm.exchange(recvs=[(incoming, (virtual + mask + root) % n)])
                flat.add_(incoming)
        return
    # Chain root+1 -> root+2 -> ... -> root; position 0 is the head, n-1 the root.
    position = (comm.rank - root - 1) % n
    previous, following = (comm.rank - 1) % n, (comm.rank + 1) % n
    pieces = _pieces(flat.numel(), flat.element_size(), piece_bytes)
    incoming = torch.empty_like(flat) if position > 0 else None  # [K]
    _chain(flat, incoming, pieces, position, n, previous, following, comm)


def _powers_below(n: int) -> list[int]:
    return [1 << k for k in range((n - 1).bit_length())]


def _chain(flat, incoming, pieces, position, n, previous, following, comm) -> None:
    """Pipelined chain in lock step (one `comm.exchange` group per step, as NCCL needs): position
    p receives piece j at step j + p - 1 (into place, or into `incoming` and added when reducing)
    and sends piece j on at step j + p."""
    for step in range(len(pieces) + n - 1):
        sends, recvs, added = [], [], None
        index = step - position + 1
        if position > 0 and 0 <= index < len(pieces):
            lo, hi = pieces[index]
            recvs.append(((incoming if incoming is not None else flat)[lo:hi], previous))
            added = (lo, hi) if incoming is not None else None
        index = step - position
        if position < n - 1 and 0 <= index < len(pieces):
            lo, hi = pieces[index]
            sends.append((flat[lo:hi], following))
        comm.exchange(sends=sends, recvs=recvs)
        if added is not None:
            flat[added[0] : added[1]].add_(incoming[added[0] : added[1]])
