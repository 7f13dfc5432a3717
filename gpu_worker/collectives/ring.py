"""Ring reduce-scatter, ring all-gather and ring all-reduce (the two in sequence), in place,
on `Comm` point-to-point calls only; uneven chunks when the size does not divide by N."""
from __future__ import annotations

import torch

from gpu_worker.collectives.chunks import chunk_bounds, flat_view

# A chunk larger than this moves as several segments, so adding segment i overlaps with
# receiving segment i+1 (gloo and NCCL pipeline the same way).
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
    (N-1)/N of the tensor. Receives for step s+1 are posted before step s is reduced
    (two buffers), so the neighbour never waits for us to be ready."""
    flat = flat_view(tensor)  # [K]
    n, rank, numel = comm.world_size, comm.rank, flat.numel()
    own = chunk_bounds(numel, n, rank)
    if n == 1:
        return flat[own[0]:own[1]]
    right, left = (rank + 1) % n, (rank - 1) % n
    largest = chunk_bounds(numel, n, 0)
    buffers = [torch.empty(largest[1] - largest[0], dtype=flat.dtype, device=flat.device)  # [ceil(K/N)]
               for _ in range(2)]

    def post_receives(step: int) -> list:
        start, end = chunk_bounds(numel, n, (rank - step - 2) % n)
        buffer = buffers[step % 2]
        return [(lo, hi, buffer[lo - start:hi - start], comm.irecv(buffer[lo - start:hi - start], left))
                for lo, hi in _segments(start, end, flat.element_size(), segment_bytes)]

    receives, sends = post_receives(0), []
    for step in range(n - 1):
        following = post_receives(step + 1) if step + 1 < n - 1 else []
        start, end = chunk_bounds(numel, n, (rank - step - 1) % n)
        sends += [comm.isend(flat[lo:hi], right)
                  for lo, hi in _segments(start, end, flat.element_size(), segment_bytes)]
        for lo, hi, incoming, handle in receives:
            handle.wait()
            flat[lo:hi].add_(incoming)
        receives = following
    for handle in sends:
        handle.wait()
    return flat[own[0]:own[1]]


def ring_all_gather(tensor: torch.Tensor, comm, segment_bytes: int = DEFAULT_SEGMENT_BYTES) -> None:
    """Fill every chunk of `tensor` from the rank that owns it: on entry chunk `rank`
    holds this rank's part; on exit all chunks hold every rank's part.

    N-1 steps; at step s rank r forwards chunk (r-s) to r+1 and receives chunk (r-s-1)
    from r-1 straight into place. Each rank sends (N-1)/N of the tensor. Every receive
    lands in its own chunk, so all of them are posted up front."""
    flat = flat_view(tensor)  # [K]
    n, rank, numel = comm.world_size, comm.rank, flat.numel()
    if n == 1:
        return
    right, left = (rank + 1) % n, (rank - 1) % n
    receives = []
    for step in range(n - 1):
        start, end = chunk_bounds(numel, n, (rank - step - 1) % n)
        receives.append([comm.irecv(flat[lo:hi], left)
                         for lo, hi in _segments(start, end, flat.element_size(), segment_bytes)])
    sends = []
    for step in range(n - 1):
        start, end = chunk_bounds(numel, n, (rank - step) % n)
        sends += [comm.isend(flat[lo:hi], right)
                  for lo, hi in _segments(start, end, flat.element_size(), segment_bytes)]
        for handle in receives[step]:  # what arrives now is forwarded next step
            handle.wait()
    for handle in sends:
        handle.wait()


def ring_all_reduce(tensor: torch.Tensor, comm, segment_bytes: int = DEFAULT_SEGMENT_BYTES) -> None:
    """In-place SUM across ranks: ring reduce-scatter then ring all-gather.

    2(N-1) steps, each rank sends 2(N-1)/N of the tensor: bandwidth-optimal, but the
    2(N-1) latency terms make it slow for small messages (see tree.py)."""
    ring_reduce_scatter(tensor, comm, segment_bytes)
    ring_all_gather(tensor, comm, segment_bytes)
