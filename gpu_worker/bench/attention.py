"""Decode attention: `python -m gpu_worker.bench attention --out FILE [--small]`.

Decode attention reads each cached K/V byte once per step, so the figure that matters is achieved bandwidth:
unique KV bytes over time, as a share of the device's HBM peak. Beside it, in the same run: torch SDPA on the same
keys laid out contiguously (no paging: the bar a paged kernel has to meet), the torch paged kernel, and a dense
einsum baseline. CUDA times are CUDA-event medians (`triton.testing.do_bench`); CPU times are wall-clock medians.
"""

import argparse
import json
from pathlib import Path

import torch
import torch.nn.functional as F

from gpu_worker.engine.attention import paged_attention_decode
from gpu_worker.engine.peaks import hbm_peak_gbps
from gpu_worker.timing import call_seconds, median_ms, torch_threads


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


def sdpa_decode(query, keys_t, values_t, mask, scale):
    """torch SDPA on contiguous KV: query [N, H, D]; keys_t, values_t [N, KVH, S, D]; mask [N, 1, 1, S] or None."""
    out = F.scaled_dot_product_attention(
        query[:, :, None, :], keys_t, values_t, attn_mask=mask, scale=scale, enable_gqa=True
    )  # [N, H, 1, D]
    return out[:, :, 0, :]


def make_inputs(num_seqs, num_heads, num_kv_heads, head_dim, block_size, max_len, dtype, device, seed=0, uniform=False):
    generator = torch.Generator().manual_seed(seed)
    lens = (
        torch.full((num_seqs,), max_len)
        if uniform
        else torch.randint(max_len // 4, max_len + 1, (num_seqs,), generator=generator)
    )  # [N]
    blocks_per_seq = max_len // block_size
    num_blocks = num_seqs * blocks_per_seq
    order = torch.randperm(num_blocks, generator=generator).view(num_seqs, blocks_per_seq)  # scattered blocks
    query = torch.randn(num_seqs, num_heads, head_dim, generator=generator).to(device, dtype)
    key_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(device, dtype)
    value_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(device, dtype)
    keys = key_cache[order.to(device)].reshape(num_seqs, max_len, num_kv_heads, head_dim)  # contiguous copy
    values = value_cache[order.to(device)].reshape(num_seqs, max_len, num_kv_heads, head_dim)
    tables = order.to(device=device, dtype=torch.int32)
    return query, key_cache, value_cache, tables, lens.to(device=device, dtype=torch.int32), keys, values


def call_ms(fn, repeats: int, device: torch.device) -> float:
    """Median milliseconds per call: Triton's do_bench on CUDA, the plain timer on CPU."""
    if device.type == "cuda":
        import triton.testing

        return float(triton.testing.do_bench(fn, warmup=5 * repeats, rep=20 * repeats, return_mode="median"))
    return median_ms(call_seconds(fn, warmup=1, repeats=repeats))


def main(argv: list[str]) -> int:
    with torch_threads():  # the CPU runs pin one thread; leave the caller's setting as it was
        return _run(argv)


def _cases(device: torch.device, small: bool) -> list[tuple]:
    """(seqs, heads, kv_heads, head_dim, block_size, max_len, uniform lengths)."""
    if device.type == "cpu":
        return [(8, 8, 8, 32, 16, 256, False), (32, 8, 2, 32, 16, 512, False), (16, 16, 2, 64, 16, 1024, True)]
    headline = (64, 32, 8, 128, 16, 4096, True)  # Llama-3-8B shapes, batch 64 x 4k context
    if small:
        return [(8, 32, 8, 128, 16, 1024, False), headline]
    return [
        (8, 32, 8, 128, 16, 1024, False),
        (1, 32, 8, 128, 16, 32768, True),
        (16, 32, 8, 128, 16, 8192, False),
        headline,
        (128, 32, 8, 128, 16, 2048, True),
    ]


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.bench attention")
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--small", action="store_true", help="two cases only (the GPU check)")
    args = parser.parse_args(argv)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.float16 if device.type == "cuda" else torch.float32
    triton_decode = None
    if device.type == "cuda":
        from gpu_worker.engine.triton_attention import paged_attention_decode_triton as triton_decode
    else:
        torch.set_num_threads(1)
    peak = hbm_peak_gbps(device)
    rows = []
    print(
        f"device {device} ({torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}), {dtype}, "
        f"HBM peak {f'{peak:.0f} GB/s' if peak else 'n/a'}" + ("" if triton_decode else "; Triton: CUDA only")
    )
    print(f"{'seqs':>4} {'kv':>3} {'ctx':>6} {'kernel':>8} {'ms':>8} {'GB/s':>8} {'of peak':>7} {'x sdpa':>7}")
    for num_seqs, heads, kv_heads, head_dim, block_size, max_len, uniform in _cases(device, args.small):
        query, key_cache, value_cache, tables, lens, keys, values = make_inputs(
            num_seqs, heads, kv_heads, head_dim, block_size, max_len, dtype, device, uniform=uniform
        )
        scale = head_dim**-0.5
        keys_t, values_t = keys.transpose(1, 2).contiguous(), values.transpose(1, 2).contiguous()  # [N, KVH, S, D]
        mask = None if uniform else (torch.arange(max_len, device=device)[None, :] < lens[:, None])[:, None, None, :]
        kernels = {
            "sdpa": lambda: sdpa_decode(query, keys_t, values_t, mask, scale),
            "paged": lambda: paged_attention_decode(query, key_cache, value_cache, tables, lens, scale),
            "dense": lambda: dense_decode(query, keys, values, lens, scale),
        }
        if triton_decode is not None:
            kernels["triton"] = lambda: triton_decode(query, key_cache, value_cache, tables, lens, scale)
        kv_bytes = int(lens.sum()) * kv_heads * head_dim * 2 * query.element_size()  # unique K and V bytes read
        reference = kernels["paged"]().float()
        row = {
            "num_seqs": num_seqs,
            "num_heads": heads,
            "num_kv_heads": kv_heads,
            "head_dim": head_dim,
            "block_size": block_size,
            "max_len": max_len,
            "uniform_lengths": uniform,
            "kv_bytes": kv_bytes,
            "hbm_peak_gbps": peak,
            "max_abs_diff_paged_dense": float((reference - kernels["dense"]().float()).abs().max()),
            "max_abs_diff_sdpa_paged": float((kernels["sdpa"]().float() - reference).abs().max()),
        }
        if triton_decode is not None:
            row["max_abs_diff_triton_paged"] = float((kernels["triton"]().float() - reference).abs().max())
        for name, fn in kernels.items():
            ms = call_ms(fn, args.repeats, device)
            row[f"{name}_ms"] = ms
            row[f"{name}_gbps"] = kv_bytes / (ms / 1000) / 1e9
            row[f"{name}_share_of_peak"] = row[f"{name}_gbps"] / peak if peak else None
        row["paged_over_dense"] = row["paged_ms"] / row["dense_ms"]
        for name in kernels:
            row[f"sdpa_over_{name}"] = row["sdpa_ms"] / row[f"{name}_ms"]  # > 1: faster than SDPA
        rows.append(row)
        for name in kernels:
            share = row[f"{name}_share_of_peak"]
            print(
                f"{num_seqs:4d} {kv_heads:3d} {max_len:6d} {name:>8} {row[f'{name}_ms']:8.3f} "
                f"{row[f'{name}_gbps']:8.1f} {f'{share:.0%}' if share else '-':>7} {row[f'sdpa_over_{name}']:7.2f}"
            )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(
            {
                "benchmark": "attention",
                "device": str(device),
                "dtype": str(dtype),
                "hbm_peak_gbps": peak,
                "cases": rows,
            },
            indent=1,
        )
    )
    return 0
