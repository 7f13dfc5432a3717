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


def broadcast(tensor: torch.Tensor, root: int, comm, algorithm: str = "auto",
              piece_bytes: int = DEFAULT_PIECE_BYTES) -> None:
    """Copy `root`'s tensor into every rank's tensor, in place."""
    flat = flat_view(tensor)  # [K]
    kind = _algorithm(flat, algorithm)
    n = comm.world_size
    if n == 1 or flat.numel() == 0:
        return
    virtual = (comm.rank - root) % n  # position relative to the root
    if kind == "binomial":
        mask = 1
        while mask < n:  # the parent is this rank with its lowest set bit cleared
            if virtual & mask:
                comm.recv(flat, (virtual - mask + root) % n)
                break
            mask <<= 1
        mask >>= 1
        sends = []
        while mask > 0:  # children: this rank plus each lower power of two
            if virtual + mask < n:
                sends.append(comm.isend(flat, (virtual + mask + root) % n))
            mask >>= 1
        for handle in sends:
            handle.wait()
        return
    previous, following = (comm.rank - 1) % n, (comm.rank + 1) % n
    pieces = _pieces(flat.numel(), flat.element_size(), piece_bytes)
    received = [comm.irecv(flat[lo:hi], previous) for lo, hi in pieces] if virtual > 0 else []
    sends = []
    for index, (lo, hi) in enumerate(pieces):
        if received:
            received[index].wait()
        if virtual < n - 1:
            sends.append(comm.isend(flat[lo:hi], following))
    for handle in sends:
        handle.wait()


def reduce(tensor: torch.Tensor, root: int, comm, algorithm: str = "auto",
           piece_bytes: int = DEFAULT_PIECE_BYTES) -> None:
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
        mask = 1
        while mask < n:
            if virtual & mask:  # send the subtree's sum to the parent and stop
                comm.send(flat, (virtual - mask + root) % n)
                break
            if virtual + mask < n:
                comm.recv(incoming, (virtual + mask + root) % n)
                flat.add_(incoming)
            mask <<= 1
        return
    # Chain root+1 -> root+2 -> ... -> root; position 0 is the head, n-1 the root.
    position = (comm.rank - root - 1) % n
    previous, following = (comm.rank - 1) % n, (comm.rank + 1) % n
    pieces = _pieces(flat.numel(), flat.element_size(), piece_bytes)
    incoming = torch.empty_like(flat) if position > 0 else None  # [K]
    received = [comm.irecv(incoming[lo:hi], previous) for lo, hi in pieces] if position > 0 else []
    sends = []
    for index, (lo, hi) in enumerate(pieces):
        if received:
            received[index].wait()
            flat[lo:hi].add_(incoming[lo:hi])
        if position < n - 1:
            sends.append(comm.isend(flat[lo:hi], following))
    for handle in sends:
        handle.wait()
