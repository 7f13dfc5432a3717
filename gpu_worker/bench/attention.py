"""Decode attention timings: torch paged vs dense contiguous vs Triton: `python -m gpu_worker.bench attention`.

Dense is the no-paging baseline: every sequence's keys in one contiguous padded tensor. Median ms per call.
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from gpu_worker.engine.attention import paged_attention_decode


def dense_decode(query, keys, values, context_lens, scale):
    """query [N, H, D]; keys, values [N, S, KVH, D] contiguous and padded; context_lens [N]."""
    num_seqs, num_heads, head_dim = query.shape
    num_kv_heads = keys.shape[2]
    q = query.reshape(num_seqs, num_kv_heads, num_heads // num_kv_heads, head_dim)  # [N, KVH, G, D]
    scores = torch.matmul(q.float(), keys.float().permute(0, 2, 3, 1)) * scale  # [N, KVH, G, S]
    outside = torch.arange(keys.shape[1], device=query.device)[None, :] >= context_lens[:, None].long()
    scores.masked_fill_(outside[:, None, None, :], float("-inf"))
    out = torch.matmul(torch.softmax(scores, -1), values.float().transpose(1, 2))  # [N, KVH, G, D]
    return out.reshape(num_seqs, num_heads, head_dim).to(query.dtype)


def make_inputs(num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_len, dtype, device, seed=0):
    generator = torch.Generator().manual_seed(seed)
    lens = torch.randint(max_len // 4, max_len + 1, (num_seqs,), generator=generator)  # [N]
    blocks_per_seq = max_len // block_size
    num_blocks = num_seqs * blocks_per_seq
    order = torch.randperm(num_blocks, generator=generator).view(num_seqs, blocks_per_seq)  # scattered blocks
    query = torch.randn(num_seqs, num_heads, head_dim, generator=generator).to(device, dtype)
    key_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(device, dtype)
    value_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(device, dtype)
    keys = key_cache[order].reshape(num_seqs, max_len, num_kv_heads, head_dim)  # contiguous copy for dense
    values = value_cache[order].reshape(num_seqs, max_len, num_kv_heads, head_dim)
    tables = order.to(device=device, dtype=torch.int32)
    return query, key_cache, value_cache, tables, lens.to(device=device, dtype=torch.int32), keys, values


def median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        started = time.perf_counter()
        fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    threads = torch.get_num_threads()
    try:
        return _run(argv)
    finally:
        torch.set_num_threads(threads)  # the CPU runs pin one thread; leave the caller's setting as it was


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.bench attention")
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(argv)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.float16 if device.type == "cuda" else torch.float32
    triton_decode = None
    if device.type == "cuda":
        from gpu_worker.engine.triton_attention import paged_attention_decode_triton as triton_decode
    else:
        torch.set_num_threads(1)
    scale_cases = [(8, 8, 8, 64, 16, 512), (32, 8, 2, 64, 16, 1024), (32, 32, 4, 64, 16, 2048)]
    if device.type == "cpu":
        scale_cases = [(8, 8, 8, 32, 16, 256), (32, 8, 2, 32, 16, 512), (16, 16, 2, 64, 16, 1024)]
    rows = []
    print(f"device {device}, {dtype}, median of {args.repeats}" + ("" if triton_decode else " (Triton: CUDA only)"))
    print(f"{'seqs':>4} {'heads':>5} {'kv':>3} {'max_len':>7} {'dense ms':>9} {'paged ms':>9} {'paged/dense':>11} "
          f"{'triton ms':>9} {'triton/paged':>12}")
    for num_seqs, heads, kv_heads, head_dim, block_size, max_len in scale_cases:
        query, key_cache, value_cache, tables, lens, keys, values = make_inputs(
            num_seqs, heads, kv_heads, head_dim, block_size, max_len, dtype, device)
        scale = head_dim ** -0.5
        paged = paged_attention_decode(query, key_cache, value_cache, tables, lens, scale)
        dense = dense_decode(query, keys, values, lens, scale)
        row = {"num_seqs": num_seqs, "num_heads": heads, "num_kv_heads": kv_heads, "head_dim": head_dim,
               "block_size": block_size, "max_len": max_len,
               "max_abs_diff_paged_dense": float((paged.float() - dense.float()).abs().max()),
               "dense_ms": median_ms(lambda: dense_decode(query, keys, values, lens, scale), args.repeats),
               "paged_ms": median_ms(lambda: paged_attention_decode(query, key_cache, value_cache, tables, lens, scale),
                                     args.repeats)}
        row["paged_over_dense"] = row["paged_ms"] / row["dense_ms"]
        if triton_decode is not None:
            out = triton_decode(query, key_cache, value_cache, tables, lens, scale)
            row["max_abs_diff_triton_paged"] = float((out.float() - paged.float()).abs().max())
            row["triton_ms"] = median_ms(lambda: triton_decode(query, key_cache, value_cache, tables, lens, scale),
                                         args.repeats)
            row["triton_over_paged"] = row["triton_ms"] / row["paged_ms"]
        rows.append(row)
        triton_text = f"{row['triton_ms']:9.3f} {row['triton_over_paged']:12.2f}" if "triton_ms" in row else f"{'-':>9} {'-':>12}"
        print(f"{num_seqs:4d} {heads:5d} {kv_heads:3d} {max_len:7d} {row['dense_ms']:9.3f} {row['paged_ms']:9.3f} "
              f"{row['paged_over_dense']:11.2f} {triton_text}")
    Path(args.out).write_text(json.dumps({"benchmark": "attention", "device": str(device), "dtype": str(dtype),
                                          "cases": rows}, indent=1))
    return 0
