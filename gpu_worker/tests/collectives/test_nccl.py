"""The same suite on NCCL when the host has a GPU per rank (skipped elsewhere)."""

import pytest
import torch

from gpu_worker.collectives.launcher import launch
from gpu_worker.tests.collectives import rank_programs


@pytest.mark.gpu
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_collectives_match_nccl_on_two_gpus():
    cases = [(1, "float32"), (1000, "float32"), (4097, "int64"), (rank_programs.LARGE, "float32")]
    per_rank = launch(rank_programs.check_suite, 2, args=(cases,), timeout=300, backend="nccl")
    failures = [r for rank in per_rank for r in rank if not r["ok"]]
    assert failures == []
