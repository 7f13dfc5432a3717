"""Tensor-parallel MLP (Megatron style): the first matmul split by columns, the second by
rows, so each block needs exactly one all-reduce in the forward pass."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from gpu_worker.collectives.chunks import chunk_bounds
from gpu_worker.collectives.ring import ring_all_reduce


@dataclass
class MLPWeights:
    """One block: y = gelu(x @ w_in + b_in) @ w_out + b_out."""

    w_in: torch.Tensor  # [d_model, d_hidden]
    b_in: torch.Tensor  # [d_hidden]
    w_out: torch.Tensor  # [d_hidden, d_model]
    b_out: torch.Tensor  # [d_model]

    def __post_init__(self):
        d_model, d_hidden = self.w_in.shape
        if self.b_in.shape != (d_hidden,):
            raise ValueError(f"b_in must have shape ({d_hidden},), got {tuple(self.b_in.shape)}")
        if self.w_out.shape != (d_hidden, d_model):
            raise ValueError(f"w_out must have shape ({d_hidden}, {d_model}), got {tuple(self.w_out.shape)}")
        if self.b_out.shape != (d_model,):
            raise ValueError(f"b_out must have shape ({d_model},), got {tuple(self.b_out.shape)}")

    @classmethod
    def random(cls, d_model: int, d_hidden: int, seed: int) -> MLPWeights:
        generator = torch.Generator().manual_seed(seed)
        return cls(
            torch.randn(d_model, d_hidden, generator=generator) / d_model**0.5,
            torch.randn(d_hidden, generator=generator),
            torch.randn(d_hidden, d_model, generator=generator) / d_hidden**0.5,
            torch.randn(d_model, generator=generator),
        )


def mlp_forward(x: torch.Tensor, blocks: list[MLPWeights]) -> torch.Tensor:
    """The unsharded reference."""
    for block in blocks:
        x = F.gelu(x @ block.w_in + block.b_in) @ block.w_out + block.b_out  # [batch, d_model]
    return x


class TensorParallelMLP:
    """This rank's shard of a stack of MLP blocks. Rank r keeps columns r of w_in / b_in and
    the matching rows of w_out (chunks as in `chunk_bounds`, uneven when d_hidden % N != 0).

    Column-split first: gelu is elementwise, so each rank's slice of the hidden layer is
    complete without talking. Row-split second: each rank's product is a partial sum of
    the output, and one all-reduce adds them. b_out is added once, after the sum."""

    def __init__(
        self, blocks: list[MLPWeights], comm, all_reduce: Callable[[torch.Tensor, object], None] = ring_all_reduce
    ):
        self.comm = comm
        self.all_reduce = all_reduce
        self.all_reduce_calls = 0
        self.shards = []
        for block in blocks:
            start, end = chunk_bounds(block.w_in.shape[1], comm.world_size, comm.rank)
            self.shards.append(
                MLPWeights(
                    block.w_in[:, start:end].contiguous(),
                    block.b_in[start:end].clone(),
                    block.w_out[start:end].contiguous(),
                    block.b_out.clone(),
                )
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """`x` is replicated on every rank; so is the result."""
        for shard in self.shards:
            hidden = F.gelu(x @ shard.w_in + shard.b_in)  # [batch, d_hidden / N]
            partial = (hidden @ shard.w_out).contiguous()  # [batch, d_model], this rank's share of the sum
            self.all_reduce(partial, self.comm)
            self.all_reduce_calls += 1
            x = partial + shard.b_out  # [batch, d_model]
        return x
