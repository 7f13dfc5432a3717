"""Ring, batching and roofline arithmetic worked by hand (the widgets' JS mirrors these functions)."""

import pytest

from course import kv_math, widget_math


@pytest.mark.parametrize("ranks", range(2, 9))
def test_ring_steps_leave_every_rank_with_the_full_sum(ranks):
    # rank r starts with value 10**r in every chunk; an all-reduce leaves the sum everywhere
    data = [[10**rank] * ranks for rank in range(ranks)]
    for step in widget_math.ring_steps(ranks):
        before = [row[:] for row in data]
        for send in step["sends"]:
            if step["phase"] == "scatter-reduce":
                data[send["to"]][send["chunk"]] += before[send["rank"]][send["chunk"]]
            else:
                data[send["to"]][send["chunk"]] = before[send["rank"]][send["chunk"]]
    total = sum(10**rank for rank in range(ranks))
    assert data == [[total] * ranks for _ in range(ranks)]
    assert len(widget_math.ring_steps(ranks)) == 2 * (ranks - 1)


def test_ring_bytes_reach_two_n_minus_one_over_n_of_k():
    assert widget_math.ring_bytes_per_rank(4, 256, 6) == 384  # 2 · 3/4 · 256 MiB
    assert widget_math.ring_bytes_per_rank(4, 256, 3) == 192  # after scatter-reduce: half
    assert widget_math.ring_bytes_per_rank(8, 1024, 14) == 1792  # 2 · 7/8 · 1 GiB


def test_batching_timeline_worked_by_hand():
    result = widget_math.batching_timeline([4, 1, 1, 1, 1], slots=2)
    static, continuous = result["static"], result["continuous"]
    # static: groups [4,1] (4 iterations), [1,1] (1), [1] (1) -> 6 iterations, 8 of 12 busy
    assert (static["steps"], static["busy"], static["capacity"], static["utilization"]) == (6, 8, 12, 66.7)
    assert static["finish"] == [4, 1, 5, 5, 6]
    # continuous: slot 1 takes B, C, D, E one after another while A runs -> 4 iterations, all busy
    assert (continuous["steps"], continuous["capacity"], continuous["utilization"]) == (4, 8, 100.0)
    assert continuous["finish"] == [4, 1, 2, 3, 4]
    assert continuous["rows"] == [[0, 0, 0, 0], [1, 2, 3, 4]]


def test_roofline_decode_is_memory_bound_and_prefill_compute_bound():
    gpu = widget_math.GPUS["a100"]
    model = widget_math.MODELS["llama-3-8b"]
    lone = widget_math.roofline_point(
        gpu=gpu,
        params_b=model["params_b"],
        kv_bytes_per_token=131072,
        batch=1,
        tokens_per_seq=1,
        context_len=0,
        hidden_size=4096,
    )
    assert lone["intensity"] == 1.0 and lone["ridge"] == 153.0 and lone["bound"] == "memory"  # T·d/(d+2T), T=1
    decode = widget_math.roofline_point(
        gpu=gpu, params_b=8.03, kv_bytes_per_token=131072, batch=8, tokens_per_seq=1, context_len=2048, hidden_size=4096
    )
    expected = 2 * 8.03e9 * 8 / (8.03e9 * 2 + 4 * 8 * 8.03e9 / 4096 + 8 * 2048 * 131072)
    assert decode["intensity"] == round(expected, 2) == 7.03
    prefill = widget_math.roofline_point(
        gpu=gpu, params_b=8.03, kv_bytes_per_token=131072, batch=1, tokens_per_seq=2048, context_len=0, hidden_size=4096
    )
    assert prefill["bound"] == "compute" and prefill["attained_tflops"] == 312.0
    # the roofline section's table: T = 2048 with d = 4096 gives T·d / (d + 2T) = 1024 FLOP per byte
    assert prefill["intensity"] == 2048 * 4096 / (4096 + 2 * 2048) == 1024.0


def h100_decode(batch, context_len=2048, model="llama-3-8b"):
    spec = widget_math.MODELS[model]
    return widget_math.decode_step(
        gpu=widget_math.GPUS["h100"],
        params_b=spec["params_b"],
        kv_bytes_per_token=spec["kv_bytes_per_token"],
        batch=batch,
        context_len=context_len,
    )


def test_decode_step_gives_the_roofline_sections_step_times():
    # Llama-3-8B in FP16 on an H100 SXM (3.35 TB/s), 2048-token contexts: the bytes read over the bandwidth
    lone = h100_decode(1)
    assert lone["kv_bytes"] == 2048 * 131072 and lone["bytes"] == pytest.approx(8.03e9 * 2 + 2048 * 131072)
    assert (lone["step_ms"], lone["bound"], lone["tokens_per_s"]) == (4.874, "memory", 205)  # "about 4.9 ms"
    assert lone["intensity"] == round(2 * 8.03e9 / (2 * 8.03e9 + 2048 * 131072), 2) == 0.98
    assert lone["attained_tflops"] == round(0.98 * 3.35, 1)  # on the slope
    batch_64 = h100_decode(64)
    assert batch_64["kv_bytes"] == 64 * 256 * 2**20  # 64 · 256 MiB
    assert (batch_64["step_ms"], batch_64["tokens_per_s"]) == (9.922, 6450)  # "about 9.9 ms", "about 6,500"
    assert batch_64["bound"] == "memory" and batch_64["ridge"] == 295.2


def test_decode_step_crosses_the_ridge_once_the_batch_outweighs_the_bytes():
    # with no context to read, intensity is the batch size: 2 · P · B FLOPs over 2 · P bytes
    assert h100_decode(256, context_len=0)["intensity"] == 256 and h100_decode(256, context_len=0)["bound"] == "memory"
    wide = h100_decode(512, context_len=0)
    assert wide["bound"] == "compute" and wide["attained_tflops"] == 989.0
    assert wide["step_ms"] == widget_math.round_half_up(2 * 8.03e9 * 512 / 989e12 * 1e3, 3)  # the compute time


def test_the_roofline_models_take_their_kv_bytes_from_the_kv_sizing_math():
    for slug, model in widget_math.MODELS.items():
        assert model["kv_bytes_per_token"] == kv_math.kv_bytes_per_token(kv_math.PRESETS[slug], 2)
    assert widget_math.MODELS["llama-3-8b"]["kv_bytes_per_token"] == 131072  # 2 · 32 · 8 · 128 · 2


def test_rounding_matches_javascript_math_round_on_ties():
    # 249 busy of 400 slot-iterations = 62.25%: Python's round() gives 62.2, JS Math.round gives 62.3
    assert widget_math.round_half_up(100 * 249 / 400, 1) == 62.3
    assert widget_math.round_half_up(2.675, 2) == 2.68 and round(2.675, 2) == 2.67


def test_the_widget_gpus_are_the_data_sheets_figures():
    """The roofline widget reads gpu_worker/contract/gpus.py, the table the grader and cost model read."""
    assert {slug: (gpu["tflops"], gpu["tbps"], gpu["memory_gb"]) for slug, gpu in widget_math.GPUS.items()} == {
        "a100": (312.0, 2.039, 80),
        "h100": (989.0, 3.35, 80),
        "h200": (989.0, 4.8, 141),
        "l4": (121.0, 0.3, 24),
    }
