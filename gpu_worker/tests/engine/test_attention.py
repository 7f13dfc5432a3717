"""Torch paged decode attention against dense attention; dense attention against a hand-written softmax."""

import pytest
import torch

from gpu_worker.engine.attention import (
    PrefillBatch,
    dense_attention,
    gather_context,
    paged_attention_decode,
    paged_attention_prefill,
)

from .attention_cases import dense_reference, make_case


@pytest.mark.parametrize("num_heads,num_kv_heads", [(4, 4), (8, 2), (8, 1)])
@pytest.mark.parametrize("block_size", [8, 16, 32])
def test_paged_matches_dense(num_heads, num_kv_heads, block_size):
    case = make_case(num_heads, num_kv_heads, block_size, [1, 7, block_size, 3 * block_size + 5])
    scale = 16**-0.5
    torch.testing.assert_close(paged_attention_decode(*case, scale), dense_reference(*case, scale))


def test_paged_fp16_keeps_dtype():
    case = make_case(8, 2, 16, [19, 40], dtype=torch.float16)
    out = paged_attention_decode(*case, 0.25)
    assert out.dtype == torch.float16
    torch.testing.assert_close(out, dense_reference(*case, 0.25), atol=2e-3, rtol=2e-3)


def test_gqa_head_uses_kv_head_h_over_group():
    query, key_cache, value_cache, tables, lens = make_case(8, 2, 8, [12])
    value_cache[..., 1, :] = 0  # kv head 1 serves query heads 4..7 and now contributes zeros
    out = paged_attention_decode(query, key_cache, value_cache, tables, lens, 0.25)
    assert out[0, 4:].abs().max() == 0 and out[0, :4].abs().min() > 0


def test_dense_attention_matches_explicit_softmax_with_prefix_offset():
    generator = torch.Generator().manual_seed(3)
    query, key, value = (
        torch.randn(3, 2, 4, generator=generator),
        torch.randn(5, 2, 4, generator=generator),
        torch.randn(5, 2, 4, generator=generator),
    )
    out = dense_attention(query, key, value, 0.5)
    for t in range(3):  # query t sits at position 2 + t and sees keys 0..2+t
        weights = torch.softmax((key[: 3 + t] * query[t]).sum(-1) * 0.5, dim=0)  # [S, H]
        torch.testing.assert_close(out[t], (weights[..., None] * value[: 3 + t]).sum(0))


@pytest.mark.parametrize(
    "chunks",
    [[(5, 5)], [(6, 20), (4, 9), (7, 7)], [(40, 45), (2, 30)]],  # one; even enough to pad; too uneven to pad
)
def test_prefill_chunks_in_one_call_match_dense_per_chunk(chunks):
    """(queries, context) per chunk: each chunk's queries are the last of its context, causal."""
    query_lens, context_lens = [q for q, _ in chunks], [c for _, c in chunks]
    _, key_cache, value_cache, tables, _ = make_case(8, 2, 8, context_lens)
    query = torch.randn(sum(query_lens), 8, 16, generator=torch.Generator().manual_seed(5))
    longest = max(query_lens)
    batch = PrefillBatch(
        tables,
        torch.tensor(context_lens),
        torch.tensor(query_lens),
        torch.tensor([i * longest + j for i, n in enumerate(query_lens) for j in range(n)]),
        query_lens,
        context_lens,
    )
    expected, start = [], 0
    for row, (num_queries, context_len) in enumerate(chunks):
        keys = gather_context(key_cache, tables[row], context_len)
        values = gather_context(value_cache, tables[row], context_len)
        expected.append(dense_attention(query[start : start + num_queries], keys, values, 0.25))
        start += num_queries
    torch.testing.assert_close(paged_attention_prefill(query, key_cache, value_cache, batch, 0.25), torch.cat(expected))
