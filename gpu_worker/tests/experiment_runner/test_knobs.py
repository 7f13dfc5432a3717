"""Every knob is checked before the engine starts, with a message that names it and what is allowed."""

import pytest

from gpu_worker.contract.knobs import DEFAULTS, MAX_STEPS, KnobError, normalize, step_bound
from gpu_worker.contract.workload import MAX_MODEL_LEN, make_requests


def test_an_empty_config_gets_the_defaults():
    assert normalize({}) == DEFAULTS


@pytest.mark.parametrize(
    "config, field, words",
    [
        ({"max_num_seqs": 0}, "max_num_seqs", "from 1 to 64"),
        ({"max_num_seqs": 10_000}, "max_num_seqs", "from 1 to 64"),
        ({"max_num_seqs": "16"}, "max_num_seqs", "whole number"),
        ({"max_num_seqs": True}, "max_num_seqs", "whole number"),
        ({"num_requests": 100_000}, "num_requests", "from 1 to 48"),
        ({"clock": "sundial"}, "clock", "worker, h100-model"),
        ({"kv_tokens": 64}, "kv_tokens", "from 512"),
        ({"block_size": 7}, "block_size", "one of 8, 16, 32"),
        ({"request_rate": float("nan")}, "request_rate", "number"),
        ({"request_rate": 0}, "request_rate", "from 0.1"),
        ({"slo_itl_ms": -1}, "slo_itl_ms", "from 1"),
        ({"enable_prefix_caching": "yes"}, "enable_prefix_caching", "true or false"),
        ({"workload": "everything"}, "workload", "chat, long-prompt, shared-prefix"),
        ({"model": "llama-70b"}, "model", "one of tiny"),
        ({"turbo": 1}, "turbo", "not a knob"),
        ({"enable_chunked_prefill": False, "max_num_batched_tokens": 256}, "max_num_batched_tokens", "chunked prefill"),
        ({"num_requests": 48, "workload": "shared-prefix"}, "num_requests", f"cap is {MAX_STEPS}"),
    ],
)
def test_out_of_bounds_knobs_are_refused_by_name(config, field, words):
    with pytest.raises(KnobError) as caught:
        normalize(config)
    assert caught.value.field == field and words in caught.value.message


def test_a_config_that_is_not_an_object_is_refused():
    with pytest.raises(KnobError, match="JSON object"):
        normalize(["max_num_seqs", 4])


def test_unused_knobs_do_not_change_the_normalized_config():
    # the cache key must not split on a knob that changes nothing
    assert normalize({"system_prompt_len": 64}) == normalize({})
    assert normalize({"arrivals": "all-at-once", "request_rate": 3}) == normalize({"arrivals": "all-at-once"})


@pytest.mark.parametrize("workload", ["chat", "long-prompt", "shared-prefix"])
@pytest.mark.parametrize("arrivals", ["poisson", "bursty", "all-at-once"])
def test_workloads_are_seeded_and_fit_the_model(workload, arrivals):
    knobs = {**DEFAULTS, "workload": workload, "arrivals": arrivals, "num_requests": 48, "seed": 3}
    first, again = make_requests(knobs), make_requests(knobs)
    assert first == again and len(first) == 48
    assert all(len(r.prompt) + r.output_len <= MAX_MODEL_LEN and r.output_len >= 1 for r in first)
    assert [r.arrival_s for r in first] == sorted(r.arrival_s for r in first)
    assert make_requests({**knobs, "seed": 4}) != first


def test_bursty_arrivals_land_in_groups_and_shared_prefix_shares_its_start():
    bursty = make_requests(normalize({"arrivals": "bursty", "num_requests": 16}))
    assert len({r.arrival_s for r in bursty}) == 2
    shared = make_requests(normalize({"workload": "shared-prefix", "system_prompt_len": 128}))
    assert len({tuple(r.prompt[:128]) for r in shared}) == 1


def test_the_step_bound_is_an_upper_bound_and_the_default_fits_under_the_cap():
    from gpu_worker.experiment_runner import run_experiment

    knobs = normalize({"num_requests": 4, "arrivals": "poisson", "request_rate": 0.1, "max_num_batched_tokens": 32})
    assert run_experiment(knobs)["metrics"]["steps"] <= step_bound(knobs)  # sparse arrivals: one at a time
    assert step_bound(normalize({})) < MAX_STEPS
