"""Tensor-parallel MLP on 3 ranks with an uneven hidden split: equals the unsharded MLP and
does exactly one all-reduce (of the block output) per block."""

import pytest
import torch

from gpu_worker.collectives.bandwidth import textbook_bytes_sent
from gpu_worker.collectives.tp_mlp import MLPWeights
from gpu_worker.tests.collectives.rank_programs import TP_MLP_ARGS, TP_MLP_WORLD

BATCH, D_MODEL, D_HIDDEN, BLOCKS, _ = TP_MLP_ARGS
WORLD = TP_MLP_WORLD


def test_tensor_parallel_mlp_equals_unsharded_with_one_all_reduce_per_block(launched):
    results = [rank["tp_mlp"] for rank in launched(WORLD)]
    assert [r["hidden_shard"] for r in results] == [[4, 4], [3, 3], [3, 3]]
    for result in results:
        torch.testing.assert_close(result["y"], result["expected"], rtol=1e-5, atol=1e-5)
        assert result["reduced_sizes"] == [BATCH * D_MODEL] * BLOCKS  # one all-reduce of the output per block
        assert result["mlp_calls"] == BLOCKS
        one_all_reduce = textbook_bytes_sent("all_reduce", BATCH * D_MODEL, 4, WORLD)
        assert abs(result["sent"] - BLOCKS * one_all_reduce) <= BLOCKS * 2 * 4  # nothing else moved
    torch.testing.assert_close(results[0]["y"], results[2]["y"], rtol=0, atol=0)


def test_weights_validate_shapes():
    with pytest.raises(ValueError, match="w_out"):
        MLPWeights(torch.zeros(4, 6), torch.zeros(6), torch.zeros(4, 6), torch.zeros(4))
