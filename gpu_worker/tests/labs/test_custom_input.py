"""A Run on the learner's own input: for each lab, the reference's outputs equal ours, a wrong solution's differ,
and input that breaks the lab's shape ends in a verdict naming the key (never internal_error)."""

import copy

import pytest

from gpu_worker.contract import custom_input as shapes

LABS = ("kv-sizing", "paged-attention", "scheduler", "ring-allreduce")
WRONG = {
    "kv-sizing": ("wrong_no_factor_two", "kv_bytes_per_token"),
    "paged-attention": ("wrong_no_scale", "output[0, 0, :6]"),
    "scheduler": ("wrong_over_budget", "steps"),
    "ring-allreduce": ("wrong_drops_remainder", "rank 0: tensor[6:7]"),  # the first element it gets wrong
}
# Each breaks one rule of its lab's shape: (input, words the learner reads)
BAD = {
    "kv-sizing": ({**shapes.EXAMPLES["kv-sizing"], "gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
    "paged-attention": ({**shapes.EXAMPLES["paged-attention"], "num_heads": 3}, "must be a multiple of num_kv_heads"),
    "scheduler": ({**shapes.EXAMPLES["scheduler"], "requests": []}, "requests must hold between 1 and 64"),
    "ring-allreduce": ({"world_size": 9, "numel": 7}, "world_size must be between 2 and 4, got 9"),
}


def _only_test(result: dict) -> dict:
    assert [test["name"] for test in result["tests"]] == ["custom input"]  # the public cases do not run
    return result["tests"][0]


@pytest.mark.sandbox
@pytest.mark.parametrize("lab", LABS)
def test_reference_on_the_example_input_shows_equal_outputs(grade, fixture_source, lab):
    result = grade(lab, fixture_source(lab, "reference"), mode="run", custom=copy.deepcopy(shapes.EXAMPLES[lab]))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] is None and _only_test(result)["passed"]
    custom = result["custom"]
    assert custom["input"] == shapes.check(lab, shapes.EXAMPLES[lab])  # what was run, optional keys filled in
    assert custom["rows"] and all(row["same"] for row in custom["rows"])
    if lab != "ring-allreduce":  # the ring's bytes row says "at most N", not a second figure
        assert all(row["yours"] == row["reference"] for row in custom["rows"]), custom["rows"]
    labels = ", ".join(row["label"] for row in custom["rows"])
    assert _only_test(result)["message"] == f"same as the reference: {labels}"


@pytest.mark.sandbox
@pytest.mark.parametrize("lab", LABS)
def test_a_wrong_solution_shows_where_its_output_differs(grade, fixture_source, lab):
    name, label = WRONG[lab]
    result = grade(lab, fixture_source(lab, name), mode="run", custom=copy.deepcopy(shapes.EXAMPLES[lab]))
    assert result["verdict"] == "wrong_answer", result["message"]
    assert not _only_test(result)["passed"]
    row = next(row for row in result["custom"]["rows"] if row["label"] == label)
    assert not row["same"] and row["yours"] != row["reference"]
    assert f"{label}: yours {row['yours']}, reference {row['reference']}" in _only_test(result)["message"]


@pytest.mark.sandbox
@pytest.mark.parametrize("lab", LABS)
def test_bad_input_is_the_learners_verdict_naming_the_rule(grade, fixture_source, lab):
    """Checked again on the worker: these never passed the web side's check, and must not reach the grader."""
    bad, words = BAD[lab]
    result = grade(lab, fixture_source(lab, "reference"), mode="run", custom=bad)
    assert result["verdict"] == "rejected", result["message"]
    assert words in result["message"] and "custom input" in result["message"]
    assert words in _only_test(result)["message"] and "custom" not in result


@pytest.mark.sandbox
def test_the_learners_exception_is_shown_beside_the_reference(grade):
    source = (
        "def kv_bytes_per_token(config, dtype_bytes):\n    raise KeyError('head_dim')\n"
        "def num_gpu_blocks(*args):\n    return 'x' * 100_000\n"
        "def max_concurrent_seqs(num_blocks, block_size, seq_len):\n    return 0\n"
    )
    result = grade("kv-sizing", source, mode="run", custom=copy.deepcopy(shapes.EXAMPLES["kv-sizing"]))
    assert result["verdict"] == "runtime_error", result["message"]
    first = result["custom"]["rows"][0]
    assert first["yours"].startswith("raised KeyError") and first["reference"] == "131072"
    second = result["custom"]["rows"][1]  # what the code returned, cut to a readable length
    assert second["yours"].startswith("'xxx") and second["yours"].endswith("...") and len(second["yours"]) == 200


def test_custom_input_with_submit_is_our_mistake_not_the_learners(grade):
    result = grade("kv-sizing", "def f():\n    pass\n", mode="submit", custom=shapes.EXAMPLES["kv-sizing"])
    assert result["verdict"] == "internal_error" and "custom input goes with a run" in result["message"]


@pytest.mark.sandbox
def test_code_that_hangs_on_a_custom_input_is_a_time_limit_naming_it(grade, fixture_source):
    result = grade(
        "kv-sizing",
        fixture_source("hostile", "infinite_loop"),
        mode="run",
        custom=copy.deepcopy(shapes.EXAMPLES["kv-sizing"]),
        limits={"wall_s": 3.0, "cpu_s": 2.0},
    )
    assert result["verdict"] == "time_limit", result["message"]
    assert result["message"].startswith("test custom input: ")
    assert not _only_test(result)["passed"]
