"""Turnaround: an honest naive answer is accepted in time, and a result says what the limits judged."""

import pytest


@pytest.mark.sandbox
def test_honest_per_sequence_loop_kernel_is_accepted(grade, fixture_source):
    result = grade("paged-attention", fixture_source("paged-attention", "honest_per_sequence_loop"))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] == 1.0
    assert "engine-generates-same-tokens" in {t["name"] for t in result["tests"] if t["passed"]}
    metrics = result["metrics"]
    # what the limits judge: the sandbox's CPU (its interpreter's start included) and its own time
    assert 0 < metrics["sandbox_cpu_s"] < metrics["grade_s"]
    assert 0 < metrics["sandbox_own_s"] < metrics["grade_s"]
