"""Each collective as a pair (ours, the library's) on the same buffers, plus an oracle that
computes the expected result locally; shared by the correctness tests and the report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.distributed as dist

from gpu_worker.collectives import broadcast as tree_broadcast
from gpu_worker.collectives.all_to_all import pairwise_all_to_all
from gpu_worker.collectives.chunks import chunk_bounds, chunk_sizes
from gpu_worker.collectives.comm import forbid_library_collectives
from gpu_worker.collectives.ring import ring_all_gather, ring_all_reduce, ring_reduce_scatter
from gpu_worker.collectives.tree import tree_all_reduce

ROOT = 0  # broadcast and reduce use this root in the suite


@dataclass
class Buffers:
    """What one call works on: `data` (in place) and, where the call has one, `out`."""

    data: torch.Tensor
    out: torch.Tensor | None = None
    numel: int = 0  # the logical size K of the collective


@dataclass(frozen=True)
class Collective:
    name: str
    family: str
    setup: Callable[[torch.Tensor, object], Buffers]  # (this rank's flat input, comm) -> buffers
    ours: Callable[[Buffers, object], None]
    library: Callable[[Buffers, object], None]
    library_setup: Callable[[torch.Tensor, object], Buffers] | None = None  # default: setup
    result: Callable[[Buffers, object], torch.Tensor | None] = lambda buffers, comm: buffers.data
    library_result: Callable[[Buffers, object], torch.Tensor | None] | None = None  # default: result

    def run_ours(self, x: torch.Tensor, comm) -> tuple[torch.Tensor | None, int, int]:
        """Our result for input `x`, with the bytes this rank sent and received. Runs with
        the library's collectives forbidden: proof that ours use point-to-point only."""
        buffers = self.setup(x, comm)
        sent, received = comm.bytes_sent, comm.bytes_received
        with forbid_library_collectives():
            self.ours(buffers, comm)
        comm.synchronize()
        return self.result(buffers, comm), comm.bytes_sent - sent, comm.bytes_received - received

    def run_library(self, x: torch.Tensor, comm) -> torch.Tensor | None:
        buffers = (self.library_setup or self.setup)(x, comm)
        self.library(buffers, comm)
        comm.synchronize()
        return (self.library_result or self.result)(buffers, comm)


# -- reduce-scatter / all-gather: the library needs equal blocks, so it gets padded ones ----


def _rs_result(buffers: Buffers, comm) -> torch.Tensor:
    start, end = chunk_bounds(buffers.data.numel(), comm.world_size, comm.rank)
    return buffers.data[start:end]


def _rs_library_setup(x: torch.Tensor, comm) -> Buffers:
    start, end = chunk_bounds(x.numel(), comm.world_size, comm.rank)
    return Buffers(
        data=x.clone(),
        out=torch.empty(end - start, dtype=x.dtype, device=x.device),  # [K/N]
        numel=x.numel(),
    )


def _rs_library(buffers: Buffers, comm) -> None:
    n, numel = comm.world_size, buffers.data.numel()
    dist.reduce_scatter(buffers.out, [buffers.data[slice(*chunk_bounds(numel, n, j))] for j in range(n)])


def _ag_setup(x: torch.Tensor, comm) -> Buffers:
    data = torch.zeros_like(x)  # [K]
    start, end = chunk_bounds(x.numel(), comm.world_size, comm.rank)
    data[start:end] = x[start:end]
    return Buffers(data=data, numel=x.numel())


def _ag_library_setup(x: torch.Tensor, comm) -> Buffers:
    n = comm.world_size
    width = -(-x.numel() // n)
    start, end = chunk_bounds(x.numel(), n, comm.rank)
    padded = torch.zeros(width, dtype=x.dtype, device=x.device)  # [ceil(K/N)]
    padded[: end - start] = x[start:end]
    return Buffers(
        data=padded,
        out=torch.empty(n * width, dtype=x.dtype, device=x.device),  # [N * ceil(K/N)]
        numel=x.numel(),
    )


def _ag_library(buffers: Buffers, comm) -> None:
    # torch 2.13 renames all_gather_into_tensor to all_gather_single; older releases lack the new name.
    gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    gather(buffers.out, buffers.data)


def _ag_library_result(buffers: Buffers, comm) -> torch.Tensor:
    n, width = comm.world_size, buffers.data.numel()
    blocks = buffers.out.view(n, width)  # [N, ceil(K/N)]
    return torch.cat([blocks[j, :size] for j, size in enumerate(chunk_sizes(buffers.numel, n))])


# -- all-to-all with blocks of chunk_sizes(K, N): rank r gets N blocks of size sizes[r] ------


def _a2a_setup(x: torch.Tensor, comm) -> Buffers:
    sizes = chunk_sizes(x.numel(), comm.world_size)
    out = torch.empty(comm.world_size * sizes[comm.rank], dtype=x.dtype, device=x.device)  # [N * K/N]
    return Buffers(data=x.clone(), out=out, numel=x.numel())


def _a2a_splits(buffers: Buffers, comm) -> tuple[list[int], list[int]]:
    sizes = chunk_sizes(buffers.data.numel(), comm.world_size)
    return [sizes[comm.rank]] * comm.world_size, sizes


def _a2a_ours(buffers: Buffers, comm) -> None:
    output_splits, input_splits = _a2a_splits(buffers, comm)
    pairwise_all_to_all(buffers.out, buffers.data, comm, output_splits, input_splits)


def _a2a_library(buffers: Buffers, comm) -> None:
    output_splits, input_splits = _a2a_splits(buffers, comm)
    dist.all_to_all_single(buffers.out, buffers.data, output_splits, input_splits)


def _clone(x: torch.Tensor, comm) -> Buffers:
    return Buffers(data=x.clone(), numel=x.numel())


def _root_only(buffers: Buffers, comm) -> torch.Tensor | None:
    return buffers.data if comm.rank == ROOT else None


def _make_suite() -> dict[str, Collective]:
    suite = [
        Collective(
            "all_reduce_ring",
            "all_reduce",
            _clone,
            lambda b, c: ring_all_reduce(b.data, c),
            lambda b, c: dist.all_reduce(b.data),
        ),
        Collective(
            "all_reduce_tree",
            "all_reduce",
            _clone,
            lambda b, c: tree_all_reduce(b.data, c),
            lambda b, c: dist.all_reduce(b.data),
        ),
        Collective(
            "reduce_scatter_ring",
            "reduce_scatter",
            _clone,
            lambda b, c: ring_reduce_scatter(b.data, c),
            _rs_library,
            library_setup=_rs_library_setup,
            result=_rs_result,
            library_result=lambda b, c: b.out,
        ),
        Collective(
            "all_gather_ring",
            "all_gather",
            _ag_setup,
            lambda b, c: ring_all_gather(b.data, c),
            _ag_library,
            library_setup=_ag_library_setup,
            library_result=_ag_library_result,
        ),
        Collective(
            "broadcast_binomial",
            "broadcast",
            _clone,
            lambda b, c: tree_broadcast.broadcast(b.data, ROOT, c, "binomial"),
            lambda b, c: dist.broadcast(b.data, ROOT),
        ),
        Collective(
            "broadcast_chain",
            "broadcast",
            _clone,
            lambda b, c: tree_broadcast.broadcast(b.data, ROOT, c, "chain"),
            lambda b, c: dist.broadcast(b.data, ROOT),
        ),
        Collective(
            "reduce_binomial",
            "reduce",
            _clone,
            lambda b, c: tree_broadcast.reduce(b.data, ROOT, c, "binomial"),
            lambda b, c: dist.reduce(b.data, ROOT),
            result=_root_only,
        ),
        Collective(
            "reduce_chain",
            "reduce",
            _clone,
            lambda b, c: tree_broadcast.reduce(b.data, ROOT, c, "chain"),
            lambda b, c: dist.reduce(b.data, ROOT),
            result=_root_only,
        ),
        Collective("all_to_all_pairwise", "all_to_all", _a2a_setup, _a2a_ours, _a2a_library, result=lambda b, c: b.out),
    ]
    return {collective.name: collective for collective in suite}


SUITE = _make_suite()


def integer_input(numel: int, dtype: torch.dtype, rank: int, device="cpu") -> torch.Tensor:
    """Rank `rank`'s input for wrong-counting: small integers (exact sums in fp32 and bf16)
    that differ by position and by rank."""
    index = torch.arange(numel, dtype=torch.int64)  # [K]
    return ((index * 31 + rank * 17) % 13 - 6).to(dtype=dtype, device=device)


def oracle(family: str, numel: int, dtype: torch.dtype, comm) -> torch.Tensor | None:
    """The result this rank should hold when every rank r's input is `integer_input(.., r)`,
    computed locally from all ranks' inputs (None where the rank's result is undefined)."""
    n, rank = comm.world_size, comm.rank

    def inputs():
        return (integer_input(numel, dtype, r, comm.device) for r in range(n))

    if family == "all_reduce" or (family == "reduce" and rank == ROOT):
        return sum(inputs())
    if family == "reduce":
        return None
    if family == "reduce_scatter":
        start, end = chunk_bounds(numel, n, rank)
        return sum(x[start:end] for x in inputs())
    if family == "all_gather":
        return torch.cat([x[slice(*chunk_bounds(numel, n, r))] for r, x in enumerate(inputs())])
    if family == "broadcast":
        return integer_input(numel, dtype, ROOT, comm.device)
    if family == "all_to_all":
        start, end = chunk_bounds(numel, n, rank)
        return torch.cat([x[start:end] for x in inputs()])
    raise ValueError(f"no oracle for family {family!r}")


def count_wrong(result: torch.Tensor | None, expected: torch.Tensor | None) -> int:
    """Elements that differ (nccl-tests' #wrong); a missing result where one is due counts all."""
    if expected is None:
        return 0
    if result is None or result.shape != expected.shape:
        return expected.numel()
    return int((result != expected).sum().item())
