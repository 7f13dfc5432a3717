"""Paged decode attention as a Triton kernel (CUDA, or CPU under TRITON_INTERPRET=1); same signature as the torch one.

One program per (sequence, query head) walks the sequence's block table with an online softmax.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _paged_decode_kernel(
    query_ptr, key_ptr, value_ptr, tables_ptr, lens_ptr, out_ptr, scale,
    stride_qn, stride_qh, stride_kb, stride_ks, stride_kh, stride_vb, stride_vs, stride_vh,
    stride_tn, stride_on, stride_oh,
    GROUP: tl.constexpr, BLOCK_SIZE: tl.constexpr, BLOCK_S: tl.constexpr,
    HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    kv_head = head // GROUP
    context_len = tl.load(lens_ptr + seq)
    dims = tl.arange(0, BLOCK_D)
    dim_mask = dims < HEAD_DIM
    q = tl.load(query_ptr + seq * stride_qn + head * stride_qh + dims, mask=dim_mask, other=0.0).to(tl.float32)
    slots = tl.arange(0, BLOCK_S)
    running_max = tl.full([], float("-inf"), tl.float32)
    running_sum = tl.full([], 0.0, tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    num_blocks = (context_len + BLOCK_SIZE - 1) // BLOCK_SIZE
    for logical_block in range(0, num_blocks):
        block = tl.load(tables_ptr + seq * stride_tn + logical_block).to(tl.int64)
        slot_mask = (slots < BLOCK_SIZE) & (logical_block * BLOCK_SIZE + slots < context_len)
        mask = slot_mask[:, None] & dim_mask[None, :]
        k = tl.load(key_ptr + block * stride_kb + slots[:, None] * stride_ks + kv_head * stride_kh + dims[None, :],
                    mask=mask, other=0.0).to(tl.float32)  # [BLOCK_S, BLOCK_D]
        scores = tl.sum(k * q[None, :], axis=1) * scale  # [BLOCK_S]
        scores = tl.where(slot_mask, scores, float("-inf"))
        new_max = tl.maximum(running_max, tl.max(scores, axis=0))
        probs = tl.exp(scores - new_max)
        correction = tl.exp(running_max - new_max)
        v = tl.load(value_ptr + block * stride_vb + slots[:, None] * stride_vs + kv_head * stride_vh + dims[None, :],
                    mask=mask, other=0.0).to(tl.float32)  # [BLOCK_S, BLOCK_D]
        acc = acc * correction + tl.sum(probs[:, None] * v, axis=0)
        running_sum = running_sum * correction + tl.sum(probs, axis=0)
        running_max = new_max
    out = acc / running_sum
    tl.store(out_ptr + seq * stride_on + head * stride_oh + dims, out.to(out_ptr.dtype.element_ty), mask=dim_mask)


def paged_attention_decode_triton(query, key_cache, value_cache, block_tables, context_lens, scale) -> torch.Tensor:
    """query [N, H, D]; caches [num_blocks, block_size, KVH, D]; block_tables [N, M] int32; context_lens [N] int32."""
    num_seqs, num_heads, head_dim = query.shape
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    query = query.contiguous()
    assert key_cache.stride(-1) == 1 and value_cache.stride(-1) == 1, "caches need a contiguous last dimension"
    block_tables = block_tables.to(torch.int32).contiguous()
    context_lens = context_lens.to(torch.int32).contiguous()
    out = torch.empty_like(query)  # [N, H, D]
    _paged_decode_kernel[(num_seqs, num_heads)](
        query, key_cache, value_cache, block_tables, context_lens, out, float(scale),
        query.stride(0), query.stride(1), key_cache.stride(0), key_cache.stride(1), key_cache.stride(2),
        value_cache.stride(0), value_cache.stride(1), value_cache.stride(2),
        block_tables.stride(0), out.stride(0), out.stride(1),
        GROUP=num_heads // num_kv_heads, BLOCK_SIZE=block_size, BLOCK_S=triton.next_power_of_2(block_size),
        HEAD_DIM=head_dim, BLOCK_D=triton.next_power_of_2(head_dim),
    )
    return out
