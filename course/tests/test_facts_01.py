"""Module 1's corrected facts and new topics, read from the shipped files so they cannot quietly regress."""

import torch

from .content_facts import assert_topic_is_complete, prose, python_blocks


def test_the_sizing_formula_says_it_assumes_every_layer_caches_every_token():
    body = prose("01", "sizing-the-kv-cache")
    assert "every layer caches every token" in body
    assert "section 7" in body


def test_gemma3_27b_at_128k_is_sized_per_layer_type_not_by_the_every_layer_formula():
    body = prose("01", "non-uniform-attention-and-kv-sizing")
    assert "About 10.4 GiB in all" in body and "`131072 · 496 KiB = 62 GiB`" in body
    namespace: dict = {}
    exec(python_blocks("01", "non-uniform-attention-and-kv-sizing")[0], namespace)  # runs the section's assert
    assert namespace["kv_bytes_hybrid"](512, 10, 52, 1024, 16, 128, 2) == 8192 * 62 * 512  # below the window


def test_sparse_attention_is_taught_as_saving_reads_not_storage():
    assert "Sparse attention saves reads, not storage" in prose("01", "non-uniform-attention-and-kv-sizing")


def test_the_partial_attention_merge_shown_for_dcp_is_exact():
    namespace: dict = {}
    exec(python_blocks("01", "long-context-decode")[0], namespace)  # the section's own code, checked against torch
    torch.manual_seed(0)
    q, k, v = torch.randn(4, 8), torch.randn(96, 4, 8), torch.randn(96, 4, 8)  # [heads, dim], [tokens, heads, dim]
    scores = torch.einsum("hd,thd->th", q, k)
    full = torch.einsum("th,thd->hd", scores.softmax(dim=0), v)
    outs, lses = [], []
    for part in torch.arange(96).reshape(3, 32):  # three DCP ranks, 32 tokens each
        part_scores = scores[part]
        outs.append(torch.einsum("th,thd->hd", part_scores.softmax(dim=0), v[part]))
        lses.append(torch.logsumexp(part_scores, dim=0))
    merged = namespace["merge_partial_attention"](torch.stack(outs), torch.stack(lses))
    assert torch.allclose(merged, full, atol=1e-5)


def test_long_context_decode_teaches_the_crossover_and_the_quadratic_prefill():
    body = prose("01", "long-context-decode")
    assert "`16.06·10⁹ / 131072 ≈ 122,500`" in body
    assert "does **not** give a fixed step time" in body


def test_the_new_module_1_topics_are_complete():
    assert_topic_is_complete(
        "01",
        "non-uniform-attention-and-kv-sizing",
        ["Gemma 3", "Jamba", "Mamba", "hybrid KV cache manager", "DeepSeek-V3.2"],
    )
    assert_topic_is_complete("01", "long-context-decode", ["context parallel", "Helix", "Flash-Decoding"])
