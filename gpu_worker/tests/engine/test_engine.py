"""Paged engine output equals the dense no-cache recomputation, token for token, under every feature."""

import pytest
import torch

from gpu_worker.engine import EngineConfig, LLMEngine, SamplingParams
from gpu_worker.engine.attention import paged_attention_decode
from gpu_worker.engine.policy import InvalidDecision, reference_policy

GREEDY = SamplingParams(max_tokens=12, ignore_eos=True)


def expected(model, dense_generate, prompts, params):
    return [dense_generate(model, prompt, params) for prompt in prompts]


def test_greedy_mixed_lengths_with_chunked_prefill(tiny_model, dense_generate, prompts):
    # a 16-token budget is smaller than the 17-, 33- and 40-token prompts, so they must be chunked
    engine = LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8, max_num_batched_tokens=16))
    params = [SamplingParams(max_tokens=n, ignore_eos=True) for n in (3, 12, 7, 1, 9)]
    outputs = engine.generate(prompts, params)
    assert outputs == [dense_generate(tiny_model, p, sp) for p, sp in zip(prompts, params)]
    assert max(m.num_tokens for m in engine.step_metrics) == 16
    assert engine.pool.num_free == engine.num_blocks


def test_prefix_cache_hits_keep_outputs_and_respect_salt(tiny_model, dense_generate, prompts):
    engine = LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8))
    system = prompts[2]  # 40 tokens: 5 full blocks
    first = engine.generate([system + [1, 2, 3]], GREEDY)
    assert engine.step_metrics[-1].prefix_hit_tokens == 0
    second = engine.generate([system + [9, 8], system + [7] * 9], GREEDY)
    hits = sum(m.prefix_hit_tokens for m in engine.step_metrics)
    assert hits == 80  # both later prompts reuse all five cached blocks
    assert first + second == expected(
        tiny_model, dense_generate, [system + [1, 2, 3], system + [9, 8], system + [7] * 9], GREEDY
    )
    engine.add_request(system + [5], GREEDY, cache_salt="other-tenant")
    while engine.has_unfinished_requests():
        engine.step()
    assert sum(m.prefix_hit_tokens for m in engine.step_metrics) == hits  # a different salt never hits


@pytest.mark.parametrize("mode", ["recompute", "swap"])
def test_preemption_keeps_outputs(tiny_model, dense_generate, prompts, mode):
    config = EngineConfig(
        num_gpu_blocks=10,
        block_size=8,
        max_num_batched_tokens=32,
        max_model_len=80,
        preemption_mode=mode,
        num_cpu_blocks=16,
    )
    engine = LLMEngine(tiny_model, config)
    params = SamplingParams(max_tokens=20, ignore_eos=True)
    assert engine.generate(prompts, params) == expected(tiny_model, dense_generate, prompts, params)
    assert sum(m.num_preemptions for m in engine.step_metrics) > 0
    assert (engine.scheduler.num_swapped_out > 0) == (mode == "swap")
    assert engine.pool.num_free == engine.num_blocks and len(engine.scheduler.cpu_free) == config.num_cpu_blocks * (
        mode == "swap"
    )


def test_parallel_sampling_copy_on_write(tiny_model_f64, dense_generate, prompts):
    engine = LLMEngine(tiny_model_f64, EngineConfig(num_gpu_blocks=64, block_size=8))
    params = SamplingParams(n=3, max_tokens=10, temperature=1.0, top_p=0.9, seed=7, ignore_eos=True)
    outputs = engine.generate(prompts[:2], params)
    for prompt, branches in zip(prompts[:2], outputs):
        assert branches == [dense_generate(tiny_model_f64, prompt, params, branch=i) for i in range(3)]
        assert len({tuple(b) for b in branches}) > 1
    # prompts of 5 and 17 tokens end mid-block: each extra branch copies that shared block once
    assert engine.scheduler.num_cow_copies == 4
    assert engine.pool.num_free == engine.num_blocks


def test_sharing_holds_fewer_blocks_than_tokens_need(tiny_model):
    engine = LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8))
    engine.add_request(list(range(40)), SamplingParams(n=4, max_tokens=4, ignore_eos=True))
    while engine.has_unfinished_requests():
        engine.step()
    shared_step = engine.step_metrics[-2]
    assert shared_step.num_running == 4 and shared_step.kv_tokens_held < shared_step.kv_tokens_logical


def test_stop_tokens_metrics_and_text(tiny_model, dense_generate, prompts):
    reference = dense_generate(tiny_model, prompts[1], GREEDY)
    engine = LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8))
    stop = reference[3]
    out = engine.generate([prompts[1]], SamplingParams(max_tokens=12, stop_token_ids=[stop], ignore_eos=True))[0]
    assert out == reference[: reference.index(stop) + 1]
    [metrics] = engine.request_metrics("r0")
    assert metrics.finish_reason == "stop" and metrics.ttft_steps == 0 and len(metrics.itl_s) == len(out) - 1
    assert all(gap == 1 for gap in metrics.itl_steps)
    text = engine.generate_text(["hi"], SamplingParams(max_tokens=3, ignore_eos=True))[0]
    assert isinstance(text, str)


def test_plugged_decode_attention_and_policy_are_used(tiny_model, dense_generate, prompts):
    calls, states = [], []

    def decode(*args):
        calls.append(args[0].shape)
        return paged_attention_decode(*args)

    def fifo_one_at_a_time(state):
        states.append(state)
        reply = reference_policy({**state, "config": {**state["config"], "max_num_seqs": 1}})
        return reply

    engine = LLMEngine(
        tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8, decode_attention=decode, policy=fifo_one_at_a_time)
    )
    assert engine.generate(prompts[:2], GREEDY) == expected(tiny_model, dense_generate, prompts[:2], GREEDY)
    assert calls and all(shape[0] == 1 for shape in calls)
    assert set(states[0]) == {"config", "step", "free_blocks", "waiting", "running"}
    assert "output_len" not in states[0]["waiting"][0]


def test_a_policy_that_never_schedules_cannot_hang_generate(tiny_model, prompts):
    engine = LLMEngine(
        tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8, policy=lambda state: {"schedule": {}, "preempt": []})
    )
    with pytest.raises(RuntimeError, match="scheduled nothing"):
        engine.generate(prompts[:1], GREEDY)


def test_invalid_policy_decision_raises(tiny_model, prompts):
    engine = LLMEngine(
        tiny_model,
        EngineConfig(num_gpu_blocks=64, block_size=8, policy=lambda state: {"schedule": {"nope": 1}, "preempt": []}),
    )
    engine.add_request(prompts[0], GREEDY)
    with pytest.raises(InvalidDecision) as error:
        engine.step()
    assert error.value.rule == "unknown-id" and error.value.step == 0


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"block_size": 0}, "block_size"),
        ({"num_gpu_blocks": 0}, "num_gpu_blocks"),
        ({"preemption_mode": "drop"}, "preemption_mode"),
        ({"max_num_seqs": -1}, "max_num_seqs"),
    ],
)
def test_bad_engine_config_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        EngineConfig(**kwargs)


def test_kv_budget_too_small_fails_clearly(tiny_model):
    with pytest.raises(ValueError, match="no memory left for KV blocks"):
        LLMEngine(tiny_model, EngineConfig(kv_cache_memory_bytes=100))
    with pytest.raises(ValueError, match="max_model_len"):
        LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=2, block_size=8))
    engine = LLMEngine(tiny_model, EngineConfig(num_gpu_blocks=64, block_size=8, max_model_len=64))
    with pytest.raises(ValueError, match="max_model_len"):
        engine.add_request([1] * 60, SamplingParams(max_tokens=10))


def test_kv_pool_is_sized_from_the_budget(tiny_model):
    # 2 layers x 2 (K, V) x 2 kv heads x 16 dims x 4 bytes = 512 bytes per token; 16-token blocks
    engine = LLMEngine(tiny_model, EngineConfig(kv_cache_memory_bytes=512 * 16 * 40 + 100, max_model_len=128))
    assert engine.num_blocks == 40
    assert tuple(engine.kv_cache.tensor.shape) == (2, 2, 40, 16, 2, 16)


def test_static_baseline_matches_dense(tiny_model, dense_generate, prompts):
    from gpu_worker.engine import StaticBatchEngine

    engine = StaticBatchEngine(tiny_model, num_slots=2, max_model_len=64, block_size=8)
    assert engine.generate(prompts, GREEDY) == expected(tiny_model, dense_generate, prompts, GREEDY)
    assert max(m.kv_blocks_used for m in engine.step_metrics) == 2 * 8


def test_engine_and_model_free_replay_schedule_identically(tiny_model):
    from gpu_worker.engine.replay import make_trace, replay

    trace = [
        {**r, "arrival_step": 0, "output_len": r["max_tokens"]}
        for r in make_trace("memory-pressure", seed=2, num_requests=6, max_len=64)
    ]
    config = {"max_num_seqs": 4, "max_num_batched_tokens": 24, "block_size": 8, "num_blocks": 12}
    replayed = replay(reference_policy, trace, config)
    engine = LLMEngine(
        tiny_model,
        EngineConfig(
            num_gpu_blocks=12,
            block_size=8,
            max_num_seqs=4,
            max_model_len=64,
            max_num_batched_tokens=24,
            enable_prefix_caching=False,
        ),
    )
    for r in trace:
        engine.add_request([3] * r["prompt_len"], SamplingParams(max_tokens=r["max_tokens"], ignore_eos=True))
    while engine.has_unfinished_requests():
        engine.step()
    assert replayed.totals["preemptions"] > 0
    assert [(s.batch_size, s.tokens_scheduled, s.blocks_used, s.preemptions) for s in replayed.steps] == [
        (m.batch_size, m.num_tokens, m.kv_blocks_used, m.num_preemptions) for m in engine.step_metrics
    ]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_engine_on_cuda_with_triton_matches_dense(dense_generate, prompts):
    from gpu_worker.engine import load_model
    from gpu_worker.engine.decode_kernel import triton_decode_with_fallback

    from .conftest import TEST_CONFIG

    cpu_model = load_model(TEST_CONFIG, seed=0, dtype=torch.float32, device="cpu")
    cuda_model = load_model(TEST_CONFIG, seed=0, dtype=torch.float32, device="cuda")
    engine = LLMEngine(cuda_model, EngineConfig(block_size=16, gpu_memory_utilization=0.02, max_model_len=256))
    assert engine.runner.decode_attention is triton_decode_with_fallback
    assert engine.generate(prompts, GREEDY) == expected(cpu_model, dense_generate, prompts, GREEDY)
    assert triton_decode_with_fallback.failure is None, triton_decode_with_fallback.failure


@pytest.mark.parametrize("mode", ["recompute", "swap"])
def test_device_block_tables_follow_the_sequences(tiny_model_f64, dense_generate, prompts, mode):
    """The runner writes only changed table entries; through preemption, swap-in, forks and copy-on-write
    every sequence it last ran has its row equal to its block table, and the tokens stay the dense ones."""
    config = EngineConfig(
        num_gpu_blocks=14, block_size=8, max_num_batched_tokens=32, max_model_len=80, preemption_mode=mode
    )
    engine = LLMEngine(tiny_model_f64, config)
    params = SamplingParams(n=2, max_tokens=12, temperature=1.0, seed=3, ignore_eos=True)
    ids = [engine.add_request(prompt, params) for prompt in prompts[:3]]
    tables = engine.runner.tables
    while engine.has_unfinished_requests():
        engine.step()
        for seq in engine.scheduler.running:
            written, count = tables.synced.get(seq.seq_id, (None, 0))
            if written is seq.block_table:
                row = tables.tensor[tables.rows[seq.seq_id], :count].tolist()
                assert row == seq.block_table[:count], seq.seq_id
    assert sum(m.num_preemptions for m in engine.step_metrics) > 0 and engine.scheduler.num_cow_copies > 0
    for request_id, prompt in zip(ids, prompts[:3]):
        got = [s.output_token_ids for s in sorted(engine.requests[request_id], key=lambda s: s.branch)]
        assert got == [dense_generate(tiny_model_f64, prompt, params, branch) for branch in range(2)]
