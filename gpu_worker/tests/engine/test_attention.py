"""Torch paged decode attention against dense attention; dense attention against a hand-written softmax."""

import pytest
import torch

from gpu_worker.engine.attention import dense_attention, paged_attention_decode

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
