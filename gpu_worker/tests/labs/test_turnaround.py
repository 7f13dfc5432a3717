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


def test_a_policy_that_edits_the_state_it_was_handed_does_not_change_what_replay_checks():
    """The replay hands an in-process policy its own copy (only one that sends the state elsewhere skips it)."""
    from gpu_worker.engine.policy import reference_policy
    from gpu_worker.engine.replay import make_trace, replay
    from gpu_worker.graders import scheduler

    def vandal(state: dict) -> dict:
        reply = reference_policy(state)
        state["running"].clear()
        state["waiting"].clear()
        state["free_blocks"] = 10**9
        return reply

    kind = "memory-pressure"
    trace, config = make_trace(kind, 5, num_requests=scheduler.NUM_REQUESTS), scheduler.CONFIGS[kind]
    expected = replay(reference_policy, trace, config, step_cap=100_000)
    got = replay(vandal, trace, config, step_cap=100_000)
    assert expected.error is None and got.error is None
    assert got.totals == expected.totals


def test_time_limits_scale_with_the_reference_answers_time():
    from gpu_worker.contract import lab_limits, scaled_time_limits

    assert scaled_time_limits(None) == {}
    assert scaled_time_limits({"reference_own_s": 2.5, "reference_cpu_s": 1.6, "scale": 36}) == {
        "wall_s": 90,
        "cpu_s": 58,
    }
    twice_as_slow = scaled_time_limits({"reference_own_s": 5.0, "reference_cpu_s": 3.2, "scale": 36})
    assert twice_as_slow == {"wall_s": 180, "cpu_s": 116}
    assert scaled_time_limits({"reference_own_s": 0.1, "reference_cpu_s": 0.01, "scale": 3}) == {
        "wall_s": 20,
        "cpu_s": 10,
    }  # never under the minimums
    assert lab_limits("paged-attention")["wall_s"] == 90 and lab_limits("scheduler")["cpu_s"] == 17


@pytest.mark.parametrize(
    "time_scale",
    [
        [1, 2, 3],
        {"reference_own_s": 2.5, "scale": 36},
        {"reference_own_s": 2.5, "reference_cpu_s": 1.6, "scale": 36, "extra": 1},
        {"reference_own_s": -2.5, "reference_cpu_s": 1.6, "scale": 36},
        {"reference_own_s": "2.5", "reference_cpu_s": 1.6, "scale": 36},
        {"reference_own_s": 2.5, "reference_cpu_s": True, "scale": 36},
        {"reference_own_s": 2.5, "reference_cpu_s": 1.6, "scale": 1e9},
    ],
)
def test_a_time_scale_that_is_not_one_says_what_is_wrong(time_scale):
    from gpu_worker.contract import scaled_time_limits

    with pytest.raises(ValueError, match="time_scale"):
        scaled_time_limits(time_scale)
