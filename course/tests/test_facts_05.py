"""Module 5's corrected fact, read from the shipped files so it cannot quietly regress."""

from .content_facts import items, prose, text_of


def test_shard_grad_op_also_shards_parameters_outside_forward_and_backward():
    identities = prose("05", "two-all-reduce-identities")
    assert "FULL_SHARD also shards the parameters at rest" not in identities
    assert (
        "Both strategies shard parameters, gradients and optimizer state *outside* forward and backward" in identities
    )
    assert "reshards them once backward is done" in prose("05", "which-parallelism-uses-which")
    assert "between steps it too stores only a shard" in text_of(items("05", "cards")["strategy-to-collective-map"])
