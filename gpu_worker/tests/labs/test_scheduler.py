"""scheduler: the trusted replay judges validity, completion and throughput of the learner's policy."""

import pytest

from gpu_worker.engine.policy import reference_policy
from gpu_worker.engine.replay import make_trace, replay, static_batching_replay


@pytest.mark.sandbox
def test_reference_accepted_with_metrics_and_plots(grade, fixture_source):
    result = grade("scheduler", fixture_source("scheduler", "reference"))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] == 1.0
    traces = result["metrics"]["traces"]
    assert {"bursty-7", "memory-pressure-3", "hidden-long-tail", "hidden-memory-pressure"} <= set(traces)
    for figures in traces.values():
        assert set(figures) == {"yours", "reference", "static"}
        expected = {"steps", "throughput", "ttft_p50", "ttft_p99", "itl_p50", "itl_p99", "preemptions"}
        assert expected <= set(figures["yours"])
    assert traces["hidden-memory-pressure"]["yours"]["preemptions"] > 0
    assert result["metrics"]["board"]["throughput"] > 0  # the leaderboard's fixed hidden trace
    titles = [plot["title"] for plot in result["plots"]]
    assert any("KV blocks per step" in t for t in titles) and any("timeline" in t for t in titles)


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "name, verdict, words",
    [
        ("wrong_ignores_blocks", "wrong_answer", "rule 'out-of-blocks'"),
        ("wrong_over_budget", "wrong_answer", "rule 'max-num-batched-tokens'"),
        ("wrong_never_admits", "wrong_answer", "would never finish"),
    ],
)
def test_wrong_policies(grade, fixture_source, name, verdict, words):
    result = grade("scheduler", fixture_source("scheduler", name), mode="run")
    assert result["verdict"] == verdict, result["message"]
    assert words in result["message"] and "step" in result["message"]


@pytest.mark.sandbox
def test_valid_but_slow_policy_is_accepted_with_partial_score(grade, fixture_source):
    result = grade("scheduler", fixture_source("scheduler", "slow_one_at_a_time"))
    assert result["verdict"] == "accepted"
    assert 2 / 3 < result["score"] < 0.9
    assert any("of the reference policy" in t["message"] for t in result["tests"] if t["visibility"] == "hidden")


def test_grader_traces_force_preemption_and_reference_beats_static_batching():
    from gpu_worker.graders import scheduler

    for kind in scheduler.HIDDEN_KINDS:
        trace = make_trace(kind, 11, num_requests=scheduler.NUM_REQUESTS)
        reference = replay(reference_policy, trace, scheduler.CONFIGS[kind], step_cap=100_000)
        static = static_batching_replay(trace, scheduler.CONFIGS[kind])
        assert reference.error is None and reference.totals["finished"] == len(trace)
        assert reference.totals["tokens_per_step"] > static.totals["tokens_per_step"]
        if kind == "memory-pressure":
            assert reference.totals["preemptions"] > 0


@pytest.mark.sandbox
def test_the_leaderboard_trace_is_the_same_for_every_submit_and_absent_from_a_run(grade, fixture_source):
    from gpu_worker.graders import scheduler_board

    reference = fixture_source("scheduler", "reference")
    first, again = grade("scheduler", reference), grade("scheduler", reference)
    assert first["metrics"]["board"] == again["metrics"]["board"]  # the scored hidden traces change each time
    board = scheduler_board.board_workload()
    expected = replay(reference_policy, board.trace, board.config, step_cap=100_000)
    assert first["metrics"]["board"]["throughput"] == round(expected.totals["tokens_per_step"], 4)
    assert "board" not in grade("scheduler", reference, mode="run")["metrics"]
    assert not any("board" in test["name"] or "chat" in test["name"] for test in first["tests"])


def test_the_step_cap_lets_a_one_at_a_time_policy_finish_every_trace_it_once_failed(fixture_source):
    """Bursty seed 22 took the one-at-a-time policy past 4x static batching's steps, so a valid policy got a
    random time_limit; the cap also allows what serving one request at a time needs."""
    from gpu_worker.graders import scheduler

    namespace: dict = {}
    exec(compile(fixture_source("scheduler", "slow_one_at_a_time"), "slow.py", "exec"), namespace)
    trace, config = make_trace("bursty", 22, num_requests=scheduler.NUM_REQUESTS), scheduler.CONFIGS["bursty"]
    static_steps = static_batching_replay(trace, config).totals["num_steps"]
    assert replay(namespace["schedule"], trace, config, step_cap=4 * static_steps).totals["finished"] < len(trace)
    result = replay(namespace["schedule"], trace, config, step_cap=scheduler.step_cap(trace, config, static_steps))
    assert result.error is None and result.totals["finished"] == len(trace)
