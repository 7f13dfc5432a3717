"""One launch per world size, shared by the test files: spawning ranks is the slow part."""

import pytest

from gpu_worker.collectives.launcher import launch
from gpu_worker.tests.collectives import rank_programs
from gpu_worker.tests.collectives.rank_programs import TP_MLP_ARGS, TP_MLP_WORLD, cases


@pytest.fixture(scope="session")
def launched():
    """launched(N) -> per-rank results of `rank_programs.check_all` on N ranks (run once)."""
    results = {}

    def get(world_size: int) -> list[dict]:
        if world_size not in results:
            tp_args = TP_MLP_ARGS if world_size == TP_MLP_WORLD else None
            results[world_size] = launch(
                rank_programs.check_all, world_size, args=(cases(world_size), tp_args), timeout=300
            )
        return results[world_size]

    return get
