"""run_experiment on the tiny CPU model: metrics and figures come back, seeded runs repeat, knobs matter."""

import json

import pytest

from gpu_worker.contract.knobs import KnobError
from gpu_worker.experiment_runner import run_experiment
from gpu_worker.experiment_runner.policy import whole_prompt_policy
from gpu_worker.experiment_runner.task import experiment_result

SMALL = {"num_requests": 6, "arrivals": "all-at-once", "seed": 1}


def test_a_small_run_returns_every_metric_and_figure():
    result = run_experiment(SMALL)
    metrics = result["metrics"]
    assert result["ok"] and result["config"]["num_requests"] == 6
    for name in ("ttft_ms", "itl_ms"):
        dist = metrics[name]
        assert 0 < dist["p50"] <= dist["p95"] <= dist["p99"]
    assert metrics["ttft_ms"]["count"] == 6
    assert metrics["throughput_tok_s"] > 0 and 0 <= metrics["goodput_req_s"] <= metrics["throughput_req_s"]
    assert 0 <= metrics["slo_attainment"] <= 1 and 0 < metrics["peak_kv_share"] <= 1
    titles = [f["title"] for f in result["figures"]]
    assert titles == [
        "Time to first token",
        "Inter-token latency",
        "KV cache usage",
        "Queues and preemptions",
        "Tokens per step",
    ]
    assert all(f["figure"]["data"][0]["x"] for f in result["figures"])
    json.dumps(result)  # it travels as JSON


def test_the_same_seed_schedules_the_same_run():
    # wall-clock latencies differ run to run; what the scheduler did must not
    first, second = run_experiment(SMALL)["metrics"], run_experiment(SMALL)["metrics"]
    for name in ("steps", "output_tokens", "prompt_tokens", "preemptions", "peak_kv_share", "prefix_hit_tokens"):
        assert first[name] == second[name], name
    assert run_experiment({**SMALL, "seed": 2})["metrics"]["prompt_tokens"] != first["prompt_tokens"]


def test_a_small_kv_budget_preempts_and_a_large_one_does_not():
    crowded = {"num_requests": 12, "arrivals": "all-at-once", "max_num_seqs": 12}
    assert run_experiment({**crowded, "kv_tokens": 512})["metrics"]["preemptions"] > 0
    assert run_experiment({**crowded, "kv_tokens": 8192})["metrics"]["preemptions"] == 0


def test_prefix_caching_serves_the_shared_system_prompt():
    shared = {
        "workload": "shared-prefix",
        "system_prompt_len": 256,
        "num_requests": 6,
        "arrivals": "poisson",
        "request_rate": 2.0,
    }
    cached = run_experiment(shared)["metrics"]
    uncached = run_experiment({**shared, "enable_prefix_caching": False})["metrics"]
    assert cached["prefix_hit_rate"] > 0.5 and uncached["prefix_hit_tokens"] == 0


def test_without_chunked_prefill_prompts_run_whole_beside_the_decodes_as_in_vllm_v1():
    result = run_experiment({**SMALL, "enable_chunked_prefill": False, "max_num_batched_tokens": 512})
    tokens = result["figures"][4]["figure"]["data"]
    prefill, decode = tokens[0]["y"], tokens[1]["y"]
    assert any(p and d for p, d in zip(prefill, decode))  # V1: a step decodes the running and admits prompts


def _request(req_id, prompt_len, computed=0, outputs=0, blocks=0):
    return {
        "id": req_id,
        "prompt_len": prompt_len,
        "num_output_tokens": outputs,
        "num_computed_tokens": computed,
        "max_tokens": 16,
        "arrival_step": 0,
        "num_blocks": blocks,
    }


def test_a_prompt_is_admitted_whole_after_the_decodes_or_not_at_all():
    config = {"max_num_seqs": 8, "max_num_batched_tokens": 100, "block_size": 16, "num_blocks": 64}
    running = [
        _request("r1", 40, computed=41, outputs=2, blocks=3),
        _request("r2", 20, computed=21, outputs=2, blocks=2),
    ]
    waiting = [_request("w1", 60), _request("w2", 50), _request("w3", 10)]
    state = {"config": config, "step": 5, "free_blocks": 40, "running": running, "waiting": waiting}
    decision = whole_prompt_policy(state)
    # both decodes first (1 token each), then w1 whole (60 of the 98 left); w2 (50) does not fit whole, so it
    # and everyone behind it wait: no chunk of w2, and w3 does not jump the queue
    assert decision == {"schedule": {"r1": 1, "r2": 1, "w1": 60}, "preempt": []}


def test_the_modeled_clock_times_steps_on_the_roofline_and_repeats_exactly():
    # decode of a few sequences on the model is weight-bound: 16 GB over 3.35 TB/s is about 4.8 ms a token
    first = run_experiment({**SMALL, "clock": "h100-model"})
    assert 4.7 < first["metrics"]["itl_ms"]["p50"] < 5.2 and "H100" in first["clock"]
    second = run_experiment({**SMALL, "clock": "h100-model"})
    assert (first["metrics"]["ttft_ms"], first["figures"]) == (second["metrics"]["ttft_ms"], second["figures"])


def test_bad_knobs_raise_before_any_run_and_the_task_answers_with_the_message():
    with pytest.raises(KnobError):
        run_experiment({"max_num_seqs": -3})
    assert experiment_result(7, {"max_num_seqs": -3}) == {
        "experiment_id": 7,
        "ok": False,
        "error": "max_num_seqs: must be from 1 to 64, got -3",
    }
    assert experiment_result(8, "not a dict")["error"].startswith("config: must be a JSON object")


def test_the_worker_side_imports_without_django():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['django'] = None; import gpu_worker.experiment_runner.task, gpu_worker.experiment_runner.run; "
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
