"""Ring reduce-scatter, ring all-gather and ring all-reduce (the two in sequence), in place,
on `Comm` point-to-point calls only; uneven chunks when the size does not divide by N."""

from __future__ import annotations

import torch

from gpu_worker.collectives.chunks import chunk_bounds, flat_view

# A chunk larger than this moves as several messages of one step (smaller messages suit gloo's buffers).
DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024


def _segments(start: int, end: int, element_size: int, segment_bytes: int) -> list[tuple[int, int]]:
    """[start, end) cut into equal segments of at most `segment_bytes` (none when empty)."""
    if end <= start:
        return []
    count = max(1, -(-(end - start) * element_size // segment_bytes))
    step = -(-(end - start) // count)
    return [(lo, min(lo + step, end)) for lo in range(start, end, step)]


def ring_reduce_scatter(tensor: torch.Tensor, comm, segment_bytes: int = DEFAULT_SEGMENT_BYTES) -> torch.Tensor:
    """Sum `tensor` across ranks, chunk-wise: afterwards chunk `rank` (see `chunk_bounds`) of
    this rank's tensor holds the full sum of that chunk; returns that chunk as a view.

    N-1 steps; at step s rank r sends chunk (r-s-1) to r+1 and adds chunk (r-s-2) from
    r-1 into its own copy, so the last chunk it completes is chunk r. Each rank sends
    (N-1)/N of the tensor. Each step's send and receive go out as one group (`comm.exchange`),
    which NCCL needs: a receive posted alone blocks the stream the matching send would use."""
    flat = flat_view(tensor)  # [K]
    n, rank, numel = comm.world_size, comm.rank, flat.numel()
    own = chunk_bounds(numel, n, rank)
    if n == 1:
        return flat[own[0] : own[1]]
    right, left = (rank + 1) % n, (rank - 1) % n
    largest = chunk_bounds(numel, n, 0)
    buffer = torch.empty(largest[1] - largest[0], dtype=flat.dtype, device=flat.device)  # [ceil(K/N)]
    for step in range(n - 1):
        send_start, send_end = chunk_bounds(numel, n, (rank - step - 1) % n)
        start, end = chunk_bounds(numel, n, (rank - step - 2) % n)
        incoming = _segments(start, end, flat.element_size(), segment_bytes)
        comm.exchange(
            sends=[
                (flat[lo:hi], right) for lo, hi in _segments(send_start, send_end, flat.element_size(), segment_bytes)
            ],
            recvs=[(buffer[lo - start : hi - start], left) for lo, hi in incoming],
        )
        flat[start:end].add_(buffer[: end - start])
    return flat[own[0] : own[1]]


def ring_all_gather(tensor: torch.Tensor, comm, segment_bytes: int = DEFAULT_SEGMENT_BYTES) -> None:
    """Fill every chunk of `tensor` from the rank that owns it: on entry chunk `rank`
    holds this rank's part; on exit all chunks hold every rank's part.

    N-1 steps; at step s rank r forwards chunk (r-s) to r+1 and receives chunk (r-s-1)
    from r-1 straight into place. Each rank sends (N-1)/N of the tensor. Every receive
    lands straight in its own chunk."""
    flat = flat_view(tensor)  # [K]
    n, rank, numel = comm.world_size, comm.rank, flat.numel()
    if n == 1:
        return
    right, left = (rank + 1) % n, (rank - 1) % n
    size = flat.element_size()
    for step in range(n - 1):
        send_start, send_end = chunk_bounds(numel, n, (rank - step) % n)
        start, end = chunk_bounds(numel, n, (rank - step - 1) % n)
        comm.exchange(
            sends=[(flat[lo:hi], right) for lo, hi in _segments(send_start, send_end, size, segment_bytes)],
            recvs=[(flat[lo:hi], left) for lo, hi in _segments(start, end, size, segment_bytes)],
        )


def ring_all_reduce(tensor: torch.Tensor, comm, segment_bytes: int = DEFAULT_SEGMENT_BYTES) -> None:
    """In-place SUM across ranks: ring reduce-scatter then ring all-gather.

    2(N-1) steps, each rank sends 2(N-1)/N of the tensor: bandwidth-optimal, but the
    2(N-1) latency terms make it slow for small messages (see tree.py)."""
    ring_reduce_scatter(tensor, comm, segment_bytes)
    ring_all_gather(tensor, comm, segment_bytes)
