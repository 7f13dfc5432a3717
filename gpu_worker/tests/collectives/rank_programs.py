"""Top-level functions the collectives tests run on every rank (spawned processes import
them by module name, so they live here and not in the test files)."""

from __future__ import annotations

import os
import time

import torch

from gpu_worker.collectives.suite import SUITE

LARGE = (1 << 20) + 3  # 4 MB in fp32, not divisible by 2, 4 or 5
TP_MLP_WORLD = 3
TP_MLP_ARGS = (5, 8, 10, 2, 7)  # batch, d_model, d_hidden (uneven over 3 ranks), blocks, seed


def cases(world_size: int) -> list[tuple[int, str]]:
    """Sizes from 1 element to 4 MB, many not divisible by N; fp32 and int64 throughout, bf16 at a few."""
    small = sorted({1, 2, world_size - 1 or 1, world_size, world_size + 1, 7, 1000, 4097})
    return (
        [(numel, dtype) for numel in small for dtype in ("float32", "int64")]
        + [(numel, "bfloat16") for numel in (1, world_size + 1, 4097)]
        + [(LARGE, "float32")]
    )


TOLERANCES = {torch.float32: (1e-5, 1e-5), torch.bfloat16: (2e-2, 6e-2), torch.int64: (0, 0)}


def _input(numel: int, dtype: torch.dtype, rank: int, seed: int, device) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed * 1_000_003 + rank * 7919 + numel)
    if dtype == torch.int64:
        x = torch.randint(-1000, 1000, (numel,), generator=generator, dtype=torch.int64)  # [K]
    else:
        x = torch.randn(numel, generator=generator).to(dtype)  # [K]
    return x.to(device)


def check_suite(comm, cases: list[tuple[int, str]], names: list[str] | None = None, seed: int = 0) -> list[dict]:
    """Run every collective (ours, then the library's) on each (numel, dtype) case; one
    record per collective and case with the comparison and the bytes this rank moved."""
    records = []
    for numel, dtype_name in cases:
        dtype = getattr(torch, dtype_name)
        x = _input(numel, dtype, comm.rank, seed, comm.device)
        for name in names or list(SUITE):
            collective = SUITE[name]
            ours, sent, received = collective.run_ours(x, comm)
            expected = collective.run_library(x, comm)
            ok, detail = True, ""
            if expected is not None:
                rtol, atol = TOLERANCES[dtype]
                try:
                    torch.testing.assert_close(ours, expected, rtol=rtol, atol=atol)
                except AssertionError as error:
                    ok, detail = False, str(error)[:400]
            records.append(
                {
                    "collective": name,
                    "family": collective.family,
                    "dtype": dtype_name,
                    "numel": numel,
                    "element_size": x.element_size(),
                    "rank": comm.rank,
                    "ok": ok,
                    "detail": detail,
                    "sent": sent,
                    "received": received,
                }
            )
    return records


def check_all(comm, cases: list[tuple[int, str]], tp_mlp_args: tuple | None = None) -> dict:
    """Everything one launch checks on a world size: the launcher's view of the rank, the
    whole collective suite, and (when asked) the tensor-parallel MLP."""
    return {
        "rank": comm.rank,
        "world_size": comm.world_size,
        "pid": os.getpid(),
        "forbidden": _call_library_all_reduce_while_forbidden(),
        "records": check_suite(comm, cases),
        "tp_mlp": tp_mlp_forward(comm, *tp_mlp_args) if tp_mlp_args else None,
    }


def _call_library_all_reduce_while_forbidden() -> str:
    """What a learner who calls the library inside the grader's guard would see."""
    import torch.distributed as dist

    from gpu_worker.collectives.comm import ForbiddenCollective, forbid_library_collectives

    try:
        with forbid_library_collectives():
            dist.all_reduce(torch.ones(3))
    except ForbiddenCollective as error:
        return str(error)
    return "not refused"


def raise_on_rank(comm, bad_rank: int, pid_dir: str):
    """Rank `bad_rank` raises; the others block in a receive that never comes."""
    _record_pid(pid_dir, comm.rank)
    comm.barrier()  # every rank has started before one fails
    if comm.rank == bad_rank:
        raise ValueError(f"deliberate failure on rank {comm.rank}")
    comm.recv(torch.zeros(1), bad_rank)


def crash_on_rank(comm, bad_rank: int):
    """Rank `bad_rank` dies without a Python exception (as a segfault or os._exit would)."""
    comm.barrier()
    if comm.rank == bad_rank:
        os._exit(3)
    comm.recv(torch.zeros(1), bad_rank)


def hang(comm, pid_dir: str):
    """Every rank sleeps (and starts a child that sleeps too) far past any timeout."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    _record_pid(pid_dir, comm.rank, child.pid)
    time.sleep(600)


def _record_pid(pid_dir: str, rank: int, *extra: int) -> None:
    with open(os.path.join(pid_dir, f"rank{rank}.pids"), "w") as handle:
        handle.write(" ".join(str(pid) for pid in (os.getpid(), *extra)))


def tp_mlp_forward(comm, batch: int, d_model: int, d_hidden: int, blocks: int, seed: int) -> dict:
    """Run the tensor-parallel MLP with a counting ring all-reduce; compare with the unsharded one."""
    from gpu_worker.collectives.comm import forbid_library_collectives
    from gpu_worker.collectives.ring import ring_all_reduce
    from gpu_worker.collectives.tp_mlp import MLPWeights, TensorParallelMLP, mlp_forward

    weights = [MLPWeights.random(d_model, d_hidden, seed + index) for index in range(blocks)]
    x = torch.randn(batch, d_model, generator=torch.Generator().manual_seed(seed))  # [batch, d_model]
    reduced_sizes = []

    def counting_all_reduce(tensor, comm_):
        reduced_sizes.append(tensor.numel())
        ring_all_reduce(tensor, comm_)

    mlp = TensorParallelMLP(weights, comm, all_reduce=counting_all_reduce)
    comm.reset_counters()
    with forbid_library_collectives():
        y = mlp.forward(x)  # [batch, d_model]
    return {
        "y": y,
        "expected": mlp_forward(x, weights),
        "reduced_sizes": reduced_sizes,
        "mlp_calls": mlp.all_reduce_calls,
        "sent": comm.bytes_sent,
        "hidden_shard": [shard.w_in.shape[1] for shard in mlp.shards],
    }


def backend_and_device(comm):
    import torch.distributed as dist

    return dist.get_backend(), str(comm.device)


def check_suite_batched_only(comm, cases: list[tuple[int, str]]) -> list[dict]:
    """check_suite with a Comm whose lone point-to-point calls raise: every step must go through
    `comm.exchange` (one batch_isend_irecv group), the only form that cannot deadlock on NCCL."""
    from gpu_worker.collectives.comm import Comm

    class BatchedOnly(Comm):
        def _lone(self, *args, **kwargs):
            raise AssertionError("a lone send/recv/isend/irecv: on NCCL this can deadlock; use comm.exchange")

        send = recv = isend = irecv = _lone

    strict = BatchedOnly(comm.rank, comm.world_size, comm.device)
    return check_suite(strict, cases) + _many_pieces(strict)


def _many_pieces(comm) -> list[dict]:
    """Small pieces and segments, so the lock-step pipelines run many steps deep (pieces in flight on
    several tree levels, chain positions, ring segments at once)."""
    from gpu_worker.collectives import broadcast as tree_broadcast
    from gpu_worker.collectives.ring import ring_all_reduce
    from gpu_worker.collectives.tree import tree_all_reduce

    n = comm.world_size
    inputs = [_input(20000, torch.float32, rank, 3, comm.device) for rank in range(n)]  # every rank's input
    total = torch.stack(inputs).sum(0)
    runs = {
        "tree, 1 KB pieces": (lambda x: tree_all_reduce(x, comm, double=True, piece_bytes=1024), total),
        "ring, 1 KB segments": (lambda x: ring_all_reduce(x, comm, segment_bytes=1024), total),
        "broadcast chain, 2 KB pieces": (lambda x: tree_broadcast.broadcast(x, 1, comm, "chain", 2048), inputs[1]),
        "reduce chain, 2 KB pieces": (lambda x: tree_broadcast.reduce(x, 1, comm, "chain", 2048), total),
    }
    records = []
    for name, (run, expected) in runs.items():
        x = inputs[comm.rank].clone()
        run(x)
        ok = comm.rank != 1 and name.startswith("reduce") or torch.allclose(x, expected, rtol=1e-5, atol=1e-4)
        records.append({"collective": name, "rank": comm.rank, "ok": bool(ok), "detail": ""})
    return records
