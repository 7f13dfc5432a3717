"""All-to-all by pairwise exchange on `Comm` point-to-point calls: in step s (1..N-1) rank r
sends its block for r+s and receives the block from r-s, so each pair talks exactly once."""

from __future__ import annotations

import torch


def _offsets(splits: list[int]) -> list[int]:
    offsets = [0]
    for size in splits:
        offsets.append(offsets[-1] + size)
    return offsets


def _splits(tensor: torch.Tensor, splits: list[int] | None, n: int, name: str) -> list[int]:
    rows = tensor.shape[0] if tensor.dim() else 1
    if splits is None:
        if rows % n:
            raise ValueError(f"{name}: {rows} rows do not divide by world_size {n}; pass split sizes")
        return [rows // n] * n
    if len(splits) != n or sum(splits) != rows or min(splits) < 0:
        raise ValueError(f"{name}_split_sizes must be {n} non-negative sizes summing to {rows}, got {splits}")
    return list(splits)


def pairwise_all_to_all(
    output: torch.Tensor,
    input: torch.Tensor,
    comm,
    output_split_sizes: list[int] | None = None,
    input_split_sizes: list[int] | None = None,
) -> None:
    """Like `torch.distributed.all_to_all_single`: block j of `input` (rows along dim 0)
    goes to rank j, and block i of `output` comes from rank i. Each rank sends (N-1)/N of
    its input when the blocks are equal."""
    n, rank = comm.world_size, comm.rank
    if not (output.is_contiguous() and input.is_contiguous()):
        raise ValueError("all-to-all needs contiguous input and output tensors")
    row_elems = input[0].numel() if input.dim() > 1 else 1
    send_rows = _offsets(_splits(input, input_split_sizes, n, "input"))
    recv_rows = _offsets(_splits(output, output_split_sizes, n, "output"))
    source, target = input.view(-1), output.view(-1)  # [rows * row_elems]

    def block(flat, offsets, peer):
        return flat[offsets[peer] * row_elems : offsets[peer + 1] * row_elems]

    block(target, recv_rows, rank).copy_(block(source, send_rows, rank))
    for step in range(1, n):
        dst, src = (rank + step) % n, (rank - step) % n
        outgoing, incoming = block(source, send_rows, dst), block(target, recv_rows, src)
        # one group per step: on NCCL a lone blocking receive would hold the stream the send needs
        comm.exchange(
            sends=[(outgoing, dst)] if outgoing.numel() else [], recvs=[(incoming, src)] if incoming.numel() else []
        )
