"""Paged decode attention as Triton kernels (CUDA, or CPU under TRITON_INTERPRET=1); same signature as the torch one.

Decode reads every cached K/V byte once per step and does little math on it, so the kernel is bound by memory
bandwidth. Two choices follow from that:
- one program per (sequence, KV head) serves all query heads of its GQA group: each K/V tile is loaded once and
  multiplied against the whole group (as a [group, tokens] matrix product), not once per query head;
- a long context is split across programs (split-K) so a small batch still fills the GPU; each split keeps an
  online-softmax partial (max, sum, unnormalised output) and a second kernel merges the splits.
"""

import contextlib

import torch
import triton
import triton.language as tl


@triton.jit
def _paged_decode_split_kernel(
    query_ptr,
    key_ptr,
    value_ptr,
    tables_ptr,
    lens_ptr,
    part_out_ptr,
    part_max_ptr,
    part_sum_ptr,
    scale,
    stride_qn,
    stride_qh,
    stride_kb,
    stride_ks,
    stride_kh,
    stride_vb,
    stride_vs,
    stride_vh,
    stride_tn,
    stride_pn,
    stride_ph,
    stride_ps,
    split_tokens,
    GROUP: tl.constexpr,
    BLOCK_G: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_D: tl.constexpr,
    PRECISION: tl.constexpr,
):
    seq, kv_head, split = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    context_len = tl.load(lens_ptr + seq)
    heads = kv_head * GROUP + tl.arange(0, BLOCK_G)  # [BLOCK_G] query heads of this group
    head_mask = tl.arange(0, BLOCK_G) < GROUP
    dims = tl.arange(0, BLOCK_D)
    dim_mask = dims < HEAD_DIM
    q = tl.load(
        query_ptr + seq * stride_qn + heads[:, None] * stride_qh + dims[None, :],
        mask=head_mask[:, None] & dim_mask[None, :],
        other=0.0,
    )  # [BLOCK_G, BLOCK_D]
    q = q.to(key_ptr.dtype.element_ty)
    running_max = tl.full([BLOCK_G], float("-inf"), tl.float32)
    running_sum = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    start = split * split_tokens
    end = tl.minimum(start + split_tokens, context_len)
    offsets = tl.arange(0, BLOCK_N)
    for first in range(start, end, BLOCK_N):
        tokens = first + offsets  # [BLOCK_N]
        valid = tokens < end
        block = tl.load(tables_ptr + seq * stride_tn + tokens // BLOCK_SIZE, mask=valid, other=0).to(tl.int64)
        slot = tokens % BLOCK_SIZE
        mask = valid[:, None] & dim_mask[None, :]
        k = tl.load(
            key_ptr + block[:, None] * stride_kb + slot[:, None] * stride_ks + kv_head * stride_kh + dims[None, :],
            mask=mask,
            other=0.0,
        )  # [BLOCK_N, BLOCK_D]
        scores = tl.dot(q, tl.trans(k), input_precision=PRECISION) * scale  # [BLOCK_G, BLOCK_N]
        scores = tl.where(valid[None, :], scores, float("-inf"))
        new_max = tl.maximum(running_max, tl.max(scores, axis=1))
        probs = tl.exp(scores - new_max[:, None])  # [BLOCK_G, BLOCK_N]
        correction = tl.exp(running_max - new_max)
        v = tl.load(
            value_ptr + block[:, None] * stride_vb + slot[:, None] * stride_vs + kv_head * stride_vh + dims[None, :],
            mask=mask,
            other=0.0,
        )  # [BLOCK_N, BLOCK_D]
        acc = acc * correction[:, None] + tl.dot(probs.to(v.dtype), v, input_precision=PRECISION)
        running_sum = running_sum * correction + tl.sum(probs, axis=1)
        running_max = new_max
    part = seq * stride_pn + heads * stride_ph + split * stride_ps  # [BLOCK_G]
    tl.store(part_max_ptr + part, running_max, mask=head_mask)
    tl.store(part_sum_ptr + part, running_sum, mask=head_mask)
    tl.store(part_out_ptr + part[:, None] * HEAD_DIM + dims[None, :], acc, mask=head_mask[:, None] & dim_mask[None, :])


@triton.jit
def _merge_splits_kernel(
    part_out_ptr,
    part_max_ptr,
    part_sum_ptr,
    out_ptr,
    num_splits,
    stride_pn,
    stride_ph,
    stride_ps,
    stride_on,
    stride_oh,
    HEAD_DIM: tl.constexpr,
    BLOCK_D: tl.constexpr,
    BLOCK_SPLITS: tl.constexpr,
):
    seq, head = tl.program_id(0), tl.program_id(1)
    splits = tl.arange(0, BLOCK_SPLITS)
    split_mask = splits < num_splits
    dims = tl.arange(0, BLOCK_D)
    dim_mask = dims < HEAD_DIM
    part = seq * stride_pn + head * stride_ph + splits * stride_ps  # [BLOCK_SPLITS]
    maxes = tl.load(part_max_ptr + part, mask=split_mask, other=float("-inf"))
    sums = tl.load(part_sum_ptr + part, mask=split_mask, other=0.0)
    overall = tl.max(maxes, axis=0)
    weights = tl.where(split_mask & (maxes > float("-inf")), tl.exp(maxes - overall), 0.0)  # empty splits: 0
    outs = tl.load(
        part_out_ptr + part[:, None] * HEAD_DIM + dims[None, :], mask=split_mask[:, None] & dim_mask[None, :], other=0.0
    )  # [BLOCK_SPLITS, BLOCK_D]
    out = tl.sum(outs * weights[:, None], axis=0) / tl.sum(sums * weights, axis=0)
    tl.store(out_ptr + seq * stride_on + head * stride_oh + dims, out.to(out_ptr.dtype.element_ty), mask=dim_mask)


def choose_splits(num_seqs: int, num_kv_heads: int, max_tokens: int, block_n: int, num_sms: int) -> int:
    """Enough splits that about two programs per SM run, never a split shorter than one tile."""
    programs = num_seqs * num_kv_heads
    wanted = max(1, -(-2 * num_sms // programs))
    return max(1, min(wanted, -(-max_tokens // block_n), 64))


def paged_attention_decode_triton(
    query,
    key_cache,
    value_cache,
    block_tables,
    context_lens,
    scale,
    num_splits: int | None = None,
    block_n: int | None = None,
) -> torch.Tensor:
    """query [N, H, D]; caches [num_blocks, block_size, KVH, D]; block_tables [N, M] int32; context_lens [N] int32.

    `num_splits` and `block_n` (tokens per tile, a power of two >= 16) default to a choice for the device."""
    num_seqs, num_heads, head_dim = query.shape
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    group = num_heads // num_kv_heads
    query = query.contiguous()
    assert key_cache.stride(-1) == 1 and value_cache.stride(-1) == 1, "caches need a contiguous last dimension"
    block_tables = block_tables.to(torch.int32).contiguous()
    context_lens = context_lens.to(torch.int32).contiguous()
    # 64-token tiles in half precision; fp32 tiles are twice the bytes, so 32 keeps the pipelined loads in shared memory
    block_n = block_n or ((64 if key_cache.element_size() <= 2 else 32) if query.is_cuda else 16)
    # the table's width bounds every context without reading context_lens back to the host (no sync)
    max_tokens = block_tables.shape[1] * block_size
    if num_splits is None:
        num_sms = torch.cuda.get_device_properties(query.device).multi_processor_count if query.is_cuda else 4
        num_splits = choose_splits(num_seqs, num_kv_heads, max_tokens, block_n, num_sms)
    split_tokens = -(-max_tokens // (num_splits * block_n)) * block_n  # whole tiles per split
    num_splits = -(-max_tokens // split_tokens)
    out = torch.empty_like(query)  # [N, H, D]
    part_out = torch.empty(num_seqs, num_heads, num_splits, head_dim, dtype=torch.float32, device=query.device)
    part_max = torch.empty(num_seqs, num_heads, num_splits, dtype=torch.float32, device=query.device)
    part_sum = torch.empty_like(part_max)  # [N, H, S]
    fp32 = key_cache.dtype == torch.float32
    with torch.cuda.device(query.device) if query.is_cuda else contextlib.nullcontext():
        _paged_decode_split_kernel[(num_seqs, num_kv_heads, num_splits)](
            query,
            key_cache,
            value_cache,
            block_tables,
            context_lens,
            part_out,
            part_max,
            part_sum,
            float(scale),
            query.stride(0),
            query.stride(1),
            key_cache.stride(0),
            key_cache.stride(1),
            key_cache.stride(2),
            value_cache.stride(0),
            value_cache.stride(1),
            value_cache.stride(2),
            block_tables.stride(0),
            part_max.stride(0),
            part_max.stride(1),
            part_max.stride(2),
            split_tokens,
            GROUP=group,
            BLOCK_G=max(16, triton.next_power_of_2(group)),
            BLOCK_SIZE=block_size,
            BLOCK_N=block_n,
            HEAD_DIM=head_dim,
            BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
            PRECISION="ieee" if fp32 else "tf32",
        )
        _merge_splits_kernel[(num_seqs, num_heads)](
            part_out,
            part_max,
            part_sum,
            out,
            num_splits,
            part_max.stride(0),
            part_max.stride(1),
            part_max.stride(2),
            out.stride(0),
            out.stride(1),
            HEAD_DIM=head_dim,
            BLOCK_D=triton.next_power_of_2(head_dim),
            BLOCK_SPLITS=max(2, triton.next_power_of_2(num_splits)),
        )
    return out
