"""The scheduler contract: each validation rule, the reference policy's limits, and the model-free replay."""

import pytest

from gpu_worker.engine.policy import InvalidDecision, reference_policy, validate_decision
from gpu_worker.engine.replay import make_trace, replay, static_batching_replay

CONFIG = {"max_num_seqs": 2, "max_num_batched_tokens": 20, "block_size": 4, "num_blocks": 10}


def req(req_id, prompt_len=8, outputs=0, computed=0, blocks=0):
    return {
        "id": req_id,
        "prompt_len": prompt_len,
        "num_output_tokens": outputs,
        "num_computed_tokens": computed,
        "max_tokens": 16,
        "arrival_step": 0,
        "num_blocks": blocks,
    }


def state(free_blocks=4):
    return {
        "config": CONFIG,
        "step": 3,
        "free_blocks": free_blocks,
        "waiting": [req("w1"), req("w2", prompt_len=3)],
        "running": [req("r1", outputs=1, computed=8, blocks=2), req("r2", outputs=2, computed=9, blocks=3)],
    }


@pytest.mark.parametrize(
    "reply,rule",
    [
        ({"schedule": {"ghost": 1}}, "unknown-id"),
        ({"schedule": {}, "preempt": ["w1"]}, "unknown-id"),
        ({"schedule": {"r1": 0}}, "zero-tokens"),
        ({"schedule": {"r1": 2}}, "too-many-tokens"),
        ({"schedule": {"r1": 1, "r2": 1, "w2": 1}}, "max-num-seqs"),
        ({"schedule": {"r1": 1}, "preempt": ["r1"]}, "malformed"),
        ({"schedule": {}, "preempt": ["r1", "r1"]}, "malformed"),
        ({"schedule": {"r1": 1, "r2": 1, "w1": 8}, "preempt": []}, "max-num-seqs"),
        ({"schedule": {"r1": 1, "w1": 8}}, "out-of-blocks"),
        ({"schedule": {"r1": "1"}}, "malformed"),
        ({"schedule": [("r1", 1)]}, "malformed"),
        ("schedule everything", "malformed"),
    ],
)
def test_each_rule_is_named(reply, rule):
    with pytest.raises(InvalidDecision) as error:
        validate_decision(state(free_blocks=2), reply)
    assert error.value.rule == rule and error.value.step == 3


def test_budget_rule_and_preemption_frees_blocks():
    wide = {**state(free_blocks=0), "config": {**CONFIG, "max_num_seqs": 4, "max_num_batched_tokens": 8}}
    with pytest.raises(InvalidDecision, match="max-num-batched-tokens"):
        validate_decision(wide, {"schedule": {"r1": 1, "w1": 8}})
    # preempting r2 frees its 3 blocks, enough for w1's 2-block prefill
    validate_decision(wide, {"schedule": {"w1": 7}, "preempt": ["r2"]})


def test_reference_policy_runs_decodes_first_then_chunks_prefill():
    reply = reference_policy(state(free_blocks=4))
    validate_decision(state(free_blocks=4), reply)
    assert reply == {"schedule": {"r1": 1, "r2": 1}, "preempt": []}
    roomy = {**state(free_blocks=4), "running": [], "config": {**CONFIG, "max_num_batched_tokens": 5}}
    assert reference_policy(roomy)["schedule"] == {"w1": 5}  # chunked to the budget


def test_reference_policy_preempts_last_admitted_when_out_of_blocks():
    full = {
        **state(free_blocks=0),
        "running": [req("r1", outputs=1, computed=8, blocks=2), req("r2", outputs=1, computed=8, blocks=2)],
    }
    reply = reference_policy(full)
    assert reply == {"schedule": {"r1": 1}, "preempt": ["r2"]}
    validate_decision(full, reply)


@pytest.mark.parametrize("kind", ["bursty", "long-tail", "memory-pressure"])
def test_replay_finishes_every_trace_and_beats_static(kind):
    trace = make_trace(kind, seed=1, num_requests=24, max_len=128)
    assert trace == make_trace(kind, seed=1, num_requests=24, max_len=128)
    config = {"max_num_seqs": 16, "max_num_batched_tokens": 64, "block_size": 8, "num_blocks": 48}
    result = replay(reference_policy, trace, config)
    assert result.error is None and result.totals["finished"] == 24
    assert all(
        r.output_len == t["output_len"] for r, t in zip(sorted(result.requests, key=lambda r: int(r.id[1:])), trace)
    )
    assert max(s.blocks_used for s in result.steps) <= 48
    assert max(s.batch_size for s in result.steps) <= 16 and max(s.tokens_scheduled for s in result.steps) <= 64
    static = static_batching_replay(trace, {**config, "max_model_len": 128})
    assert static.totals["finished"] == 24
    assert result.totals["num_steps"] < static.totals["num_steps"]
    if kind == "memory-pressure":
        assert result.totals["preemptions"] > 0


def test_replay_reports_a_broken_policy_and_hides_output_len():
    seen = []

    def greedy_policy(state):
        seen.append(state)
        return {
            "schedule": {
                r["id"]: r["prompt_len"] + r["num_output_tokens"] - r["num_computed_tokens"]
                for r in state["waiting"] + state["running"]
            },
            "preempt": [],
        }

    trace = make_trace("memory-pressure", seed=0, num_requests=16, max_len=128)
    config = {"max_num_seqs": 16, "max_num_batched_tokens": 4096, "block_size": 8, "num_blocks": 40}
    result = replay(greedy_policy, trace, config)
    assert result.error is not None and result.error.rule == "out-of-blocks"
    assert result.totals["error"]["rule"] == "out-of-blocks"
    assert all("output_len" not in r for s in seen for r in s["waiting"] + s["running"])
    crash = replay(lambda s: 1 / 0, trace, config)
    assert crash.error.rule == "policy-raised" and "ZeroDivisionError" in crash.error.message


def test_step_cap_leaves_requests_unfinished():
    trace = make_trace("long-tail", seed=0, num_requests=8, max_len=128)
    config = {"max_num_seqs": 4, "max_num_batched_tokens": 32, "block_size": 8, "num_blocks": 32}
    result = replay(reference_policy, trace, config, step_cap=5)
    assert result.totals["num_steps"] == 5 and result.totals["finished"] < 8
