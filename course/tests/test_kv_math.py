"""KV calculator arithmetic: hand-worked examples, the kv-sizing lab's reference, and the JSON endpoint."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course import kv_math

GIB = 1 << 30


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("llama-3-8b", 131072),  # 2 · 32 layers · 8 KV heads · 128 · 2 bytes
        ("llama-3-70b", 327680),  # 2 · 80 · 8 · 128 · 2
        ("mistral-7b", 131072),  # 2 · 32 · 8 · 128 · 2
        ("falcon-7b", 8192),  # MQA: 2 · 32 · 1 · (4544 / 71 = 64) · 2
        ("gemma-7b", 458752),  # explicit head_dim: 2 · 28 · 16 · 256 · 2
    ],
)
def test_bytes_per_token_of_presets_in_fp16(preset, expected):
    assert kv_math.kv_bytes_per_token(kv_math.PRESETS[preset], 2) == expected


def test_missing_kv_heads_means_multi_head_and_fp8_halves():
    llama2 = {"num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4096}
    assert kv_math.kv_bytes_per_token(llama2, 2) == 524288
    assert kv_math.kv_bytes_per_token(kv_math.PRESETS["llama-3-8b"], 1) == 65536


def test_blocks_and_sequences_worked_by_hand():
    # 24 GiB at full utilization, 16 GiB of weights: 8 GiB / (16 tokens · 128 KiB = 2 MiB) = 4096 blocks.
    assert kv_math.num_gpu_blocks(24 * GIB, 1.0, 16 * GIB, 0, 16, 131072) == 4096
    assert kv_math.max_concurrent_seqs(4096, 16, 2048) == 32  # 128 blocks each
    assert kv_math.max_concurrent_seqs(4096, 16, 2049) == 31  # 129 blocks each
    assert kv_math.num_gpu_blocks(24 * GIB, 0.5, 16 * GIB, 0, 16, 131072) == 0  # budget below the weights


def test_report_compares_contiguous_reservation_with_paging():
    report = kv_math.kv_report(
        config=kv_math.PRESETS["llama-3-8b"],
        dtype_bytes=2,
        gpu_memory_bytes=24 * GIB,
        gpu_memory_utilization=1.0,
        weight_bytes=16 * GIB,
        activation_bytes=0,
        block_size=16,
        max_model_len=8192,
        context_len=2001,
        batch=4,
    )
    assert report["num_blocks"] == 4096
    assert report["blocks_per_sequence"] == 126  # ceil(2001 / 16)
    assert report["seqs_fit_paged"] == 32 and report["seqs_fit_contiguous"] == 8
    assert report["batch_used_bytes"] == 4 * 2001 * 131072
    assert report["contiguous_waste_bytes"] == 4 * (8192 - 2001) * 131072
    assert report["paged_waste_bytes"] == 4 * 15 * 131072  # 126 · 16 = 2016 slots for 2001 tokens
    assert report["contiguous_waste_percent"] == 75.6 and report["paged_waste_percent"] == 0.7
    assert report["batch_fits_paged"] and report["batch_fits_contiguous"]


def test_human_bytes():
    assert kv_math.human_bytes(131072) == "128 KiB"
    assert kv_math.human_bytes(268435456) == "256 MiB"
    assert kv_math.human_bytes(1536) == "1.5 KiB"


configs = st.fixed_dictionaries(
    {
        "num_hidden_layers": st.integers(1, 128),
        "num_attention_heads": st.sampled_from([1, 8, 16, 32, 64, 71, 128]),
        "hidden_size": st.integers(128, 16384),
    },
    optional={"num_key_value_heads": st.sampled_from([1, 2, 4, 8]), "head_dim": st.sampled_from([64, 128, 256])},
)


@settings(max_examples=300, deadline=None)
@given(
    config=configs,
    dtype_bytes=st.sampled_from([1, 2, 4]),
    gpu_gib=st.integers(8, 192),
    utilization=st.floats(0.05, 1.0),
    weight_gib=st.floats(0, 160),
    activation_gib=st.floats(0, 8),
    block_size=st.sampled_from([8, 16, 32]),
    seq_len=st.integers(1, 131072),
)
def test_same_numbers_as_the_kv_sizing_lab_reference(
    config, dtype_bytes, gpu_gib, utilization, weight_gib, activation_gib, block_size, seq_len
):
    sizing = pytest.importorskip("gpu_worker.contract.kv")
    per_token = kv_math.kv_bytes_per_token(config, dtype_bytes)
    assert per_token == sizing.kv_bytes_per_token(config, dtype_bytes)
    arguments = (gpu_gib * GIB, utilization, int(weight_gib * GIB), int(activation_gib * GIB), block_size, per_token)
    blocks = kv_math.num_gpu_blocks(*arguments)
    assert blocks == sizing.num_gpu_blocks(*arguments)
    assert kv_math.max_concurrent_seqs(blocks, block_size, seq_len) == sizing.max_concurrent_seqs(
        blocks, block_size, seq_len
    )


LLAMA_QUERY = {
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
    "head_dim": "",
    "dtype_bytes": 2,
    "gpu_memory_gib": 24,
    "gpu_memory_utilization": 1.0,
    "weight_gb": 16 * GIB / 1e9,
    "activation_gib": 0,
    "block_size": 16,
    "max_model_len": 8192,
    "context_len": 2048,
    "batch": 4,
}


def test_endpoint_returns_the_report(client):
    response = client.get("/course/widgets/kv/", LLAMA_QUERY)
    assert response.status_code == 200
    report = response.json()["report"]
    assert report["bytes_per_token"] == 131072 and report["num_blocks"] == 4096 and report["seqs_fit_paged"] == 32


def test_endpoint_rejects_bad_input_naming_the_field(client):
    response = client.get("/course/widgets/kv/", {**LLAMA_QUERY, "num_key_value_heads": 7, "batch": "many"})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors["num_key_value_heads"] == "KV heads must divide the attention heads."
    assert "batch" in errors


@pytest.mark.parametrize(
    "change, fatal, words",
    [
        ({}, False, None),
        ({"weight_gb": 141.2}, True, "The weights (~141.2 GB) do not fit: 1 of 24 GiB leaves 25.8 GB"),
        ({"weight_gb": 20, "activation_gib": 6}, True, "Nothing is left for the KV cache"),
        ({"weight_gb": 25.7}, True, "fewer than the 128 one 2,048-token sequence needs"),
        ({"batch": 40}, False, "A batch of 40 is above the maximum: the cache holds 32 sequences of 2,048 tokens"),
        ({"batch": 10}, False, "only 8 of the 10 sequences fit; paging fits them all"),
    ],
)
def test_endpoint_explains_impossible_inputs_in_words(client, change, fatal, words):
    problems = client.get("/course/widgets/kv/", {**LLAMA_QUERY, **change}).json()["problems"]
    assert problems["fatal"] is fatal
    assert (words in " ".join(problems["messages"])) if words else problems["messages"] == []
