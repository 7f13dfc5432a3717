"""Our collectives post every point-to-point step as one batch_isend_irecv group (what NCCL needs), on gloo here."""

import pytest

from gpu_worker.collectives.launcher import launch
from gpu_worker.tests.collectives import rank_programs


@pytest.mark.parametrize("world_size", [3, 4])
def test_every_collective_uses_only_batched_steps_and_stays_correct(world_size):
    # 20000 fp32 = 80 KB: past the double-tree and chain thresholds; 5 and 1 element: the small paths
    cases = [(1, "float32"), (5, "int64"), (20000, "float32")]
    per_rank = launch(rank_programs.check_suite_batched_only, world_size, args=(cases,), timeout=240)
    records = [record for rank in per_rank for record in rank]
    assert records and [r for r in records if not r["ok"]] == []
    assert {r["collective"] for r in records} >= {
        "all_reduce_tree",
        "all_reduce_ring",
        "broadcast_chain",
        "reduce_binomial",
        "all_to_all_pairwise",
    }
