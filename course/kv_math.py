"""KV-cache sizing for the calculator widget: the kv-sizing lab's formulas plus the waste comparison."""

import math

# The lab's reference formulas, written once in the contract; callers use them through this module too.
from gpu_worker.contract.kv import kv_bytes_per_token, max_concurrent_seqs, num_gpu_blocks

__all__ = ["GIB", "PRESETS", "human_bytes", "kv_bytes_per_token", "kv_report", "max_concurrent_seqs", "num_gpu_blocks"]

GIB = 1 << 30


PRESETS = {
    "llama-3-8b": {
        "label": "Llama-3-8B (GQA)",
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_size": 4096,
        "head_dim": None,
        "params_b": 8.03,
    },
    "llama-3-70b": {
        "label": "Llama-3-70B (GQA)",
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "hidden_size": 8192,
        "head_dim": None,
        "params_b": 70.6,
    },
    "mistral-7b": {
        "label": "Mistral-7B (GQA)",
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_size": 4096,
        "head_dim": None,
        "params_b": 7.24,
    },
    "falcon-7b": {
        "label": "Falcon-7B (MQA)",
        "num_hidden_layers": 32,
        "num_attention_heads": 71,
        "num_key_value_heads": 1,
        "hidden_size": 4544,
        "head_dim": None,
        "params_b": 7.22,
    },
    "gemma-7b": {
        "label": "Gemma-7B (explicit head_dim 256)",
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "hidden_size": 3072,
        "head_dim": 256,
        "params_b": 8.54,
    },
}


def kv_report(
    *,
    config: dict,
    dtype_bytes: int,
    gpu_memory_bytes: int,
    gpu_memory_utilization: float,
    weight_bytes: int,
    activation_bytes: int,
    block_size: int,
    max_model_len: int,
    context_len: int,
    batch: int,
) -> dict:
    """Every figure the calculator shows, from one set of inputs (all integers are bytes or counts)."""
    per_token = kv_bytes_per_token(config, dtype_bytes)
    blocks = num_gpu_blocks(
        gpu_memory_bytes, gpu_memory_utilization, weight_bytes, activation_bytes, block_size, per_token
    )
    blocks_per_seq = math.ceil(context_len / block_size)
    used = batch * context_len * per_token
    contiguous_reserved = batch * max_model_len * per_token
    paged_reserved = batch * blocks_per_seq * block_size * per_token
    cache_bytes = blocks * block_size * per_token
    return {
        "bytes_per_token": per_token,
        "bytes_per_sequence": context_len * per_token,
        "bytes_per_max_sequence": max_model_len * per_token,
        "bytes_per_block": block_size * per_token,
        "cache_bytes": cache_bytes,
        "num_blocks": blocks,
        "blocks_per_sequence": blocks_per_seq,
        "seqs_fit_paged": max_concurrent_seqs(blocks, block_size, context_len),
        "seqs_fit_contiguous": max_concurrent_seqs(blocks, block_size, max_model_len),
        "batch_used_bytes": used,
        "contiguous_reserved_bytes": contiguous_reserved,
        "contiguous_waste_bytes": contiguous_reserved - used,
        "contiguous_waste_percent": _percent(contiguous_reserved - used, contiguous_reserved),
        "paged_reserved_bytes": paged_reserved,
        "paged_waste_bytes": paged_reserved - used,
        "paged_waste_percent": _percent(paged_reserved - used, paged_reserved),
        "batch_fits_paged": batch * blocks_per_seq <= blocks,
        "batch_fits_contiguous": batch <= max_concurrent_seqs(blocks, block_size, max_model_len),
    }


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def human_bytes(count: int) -> str:
    """Binary units with up to two decimals: 131072 -> '128 KiB'."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            text = f"{value:.2f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
        value /= 1024
    return f"{count} B"
