"""The measurement loop of the report: every collective, ours and the library's, at every
message size, checked against the oracle (nccl-tests' #wrong) and timed on all ranks."""

from __future__ import annotations

import torch

from gpu_worker.collectives.bandwidth import bandwidth_row, time_calls
from gpu_worker.collectives.suite import SUITE, count_wrong, integer_input, oracle

LIBRARY = "library"


def implementation_name(collective_name: str) -> str:
    """'all_reduce_ring' -> 'ring' (the part after the family)."""
    return collective_name.split("_")[-1]


def sweep(
    comm, names: list[str], sizes: list[int], dtype_name: str = "float32", target_seconds: float = 0.1, rounds: int = 3
) -> list[dict]:
    """nccl-tests rows for each of our collectives in `names` and, once per family, the
    library's. Implementations of one family are timed in interleaved rounds. Times are
    the slowest rank's; `#wrong` is this rank's count (the caller sums the ranks)."""
    dtype = getattr(torch, dtype_name)
    element_size = torch.empty(0, dtype=dtype).element_size()
    unknown = [name for name in names if name not in SUITE]
    if unknown:
        raise ValueError(f"unknown collectives {unknown}; choose from {sorted(SUITE)}")
    families: dict[str, list[str]] = {}
    for name in names:
        families.setdefault(SUITE[name].family, []).append(name)
    rows = []
    for size in sizes:
        count = max(1, size // element_size)
        x = integer_input(count, dtype, comm.rank, comm.device)  # [count]
        for family, members in families.items():
            expected = oracle(family, count, dtype, comm)
            first = SUITE[members[0]]
            variants = [
                (implementation_name(name), SUITE[name].setup, SUITE[name].ours, SUITE[name].result) for name in members
            ]
            variants.append(
                (LIBRARY, first.library_setup or first.setup, first.library, first.library_result or first.result)
            )
            runs, wrong = {}, {}
            for implementation, setup, run, result in variants:
                buffers = setup(x, comm)
                wrong[implementation] = count_wrong(_once(run, buffers, comm, result), expected)
                runs[implementation] = lambda run=run, buffers=buffers: run(buffers, comm)
            seconds = time_calls(runs, comm, target_seconds, rounds=rounds)
            rows += [
                bandwidth_row(
                    family,
                    implementation,
                    count * element_size,
                    count,
                    dtype_name,
                    seconds[implementation],
                    comm.world_size,
                    wrong[implementation],
                )
                for implementation, *_ in variants
            ]
            del runs
    return rows


def _once(run, buffers, comm, result):
    """One checked call on fresh buffers (the timing loop then reuses them in place)."""
    run(buffers, comm)
    comm.synchronize()
    value = result(buffers, comm)
    return None if value is None else value.clone()
