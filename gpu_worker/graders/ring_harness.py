"""Sandbox side of `ring-allreduce` (a harness plugin): runs the learner's ring on N spawned ranks.

Bound into the sandbox next to comm.py and launcher.py only (not the reference ring). What it
returns is untrusted: the grader recomputes the sums and judges the byte counts itself.
"""
import time
import traceback

import torch

from gpu_worker.collectives import LaunchTimeout, RankFailed, forbid_library_collectives, launch
from gpu_worker.collectives.bandwidth import time_call


def _rank_main(comm, plan: list, sizes: list[int]):
    """Every world size in `plan` on the first N of our ranks (the others wait at the barrier),
    then the bandwidth rows when `sizes` is not empty."""
    from gpu_worker.collectives import Comm
    results = []
    with forbid_library_collectives():
        import submission
        for world_size, cases in plan:
            outputs, sent = [], []
            if comm.rank < world_size:
                group = Comm(comm.rank, world_size, comm.device)
                for per_rank in cases:
                    tensor = per_rank[comm.rank].clone()
                    submission.ring_all_reduce(tensor, group)
                    outputs.append(tensor)
                    sent.append(group.bytes_sent)
                    group.reset_counters()
            comm.barrier()
            results.append((outputs, sent))
    return results, _bandwidth(comm, sizes, submission)


def _bandwidth(comm, sizes: list[int], submission) -> list:
    """Seconds per call of the learner's ring and of the library all-reduce, for each size (elements)."""
    import torch.distributed as dist
    rows = []
    for numel in sizes:
        tensor = torch.ones(numel, dtype=torch.float32)  # [numel]
        with forbid_library_collectives():
            yours = time_call(lambda: submission.ring_all_reduce(tensor, comm), comm, target_seconds=0.05)
        library = time_call(lambda: dist.all_reduce(tensor), comm, target_seconds=0.05)
        rows.append((numel, yours, library))
    return rows


def run(submission_module, args: list):
    plan, sizes, timeout = args
    world_size = max(n for n, _ in plan)
    started = time.perf_counter()
    try:
        results = launch(_rank_main, world_size, args=(plan, sizes), timeout=timeout)
        # per world size: outputs[rank][case] and sent[rank][case], from the ranks of that size
        per_size = [{"world_size": n, "outputs": [results[r][0][i][0] for r in range(n)],
                     "sent": [results[r][0][i][1] for r in range(n)]} for i, (n, _) in enumerate(plan)]
        return {"sizes": per_size, "rows": results[0][1], "seconds": time.perf_counter() - started}
    except RankFailed as error:
        forbidden = "ForbiddenCollective" in error.traceback
        return {"failed_rank": error.rank, "forbidden": forbidden, "traceback": error.traceback[-3000:]}
    except LaunchTimeout as error:
        return {"timeout": True, "pending": list(error.pending)}
    except Exception:  # noqa: BLE001 - e.g. the learner's function cannot be pickled
        return {"failed_rank": -1, "forbidden": False, "traceback": traceback.format_exc()[-3000:]}
