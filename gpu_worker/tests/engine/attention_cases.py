"""Random paged-attention cases shared by the torch and Triton tests: shuffled tables, garbage past the end."""

import torch

from gpu_worker.engine.attention import dense_attention


def make_case(num_heads, num_kv_heads, block_size, context_lens, head_dim=16, dtype=torch.float32, seed=0):
    generator = torch.Generator().manual_seed(seed)
    max_blocks = max(-(-n // block_size) for n in context_lens) + 2
    num_blocks = len(context_lens) * max_blocks + 3
    query = torch.randn(len(context_lens), num_heads, head_dim, generator=generator).to(dtype)
    key_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(dtype)
    value_cache = torch.randn(num_blocks, block_size, num_kv_heads, head_dim, generator=generator).to(dtype)
    order = torch.randperm(num_blocks, generator=generator)  # blocks from anywhere in the pool
    block_tables = torch.full((len(context_lens), max_blocks), -12345, dtype=torch.int32)  # unread garbage
    for row, length in enumerate(context_lens):
        used = -(-length // block_size)
        block_tables[row, :used] = order[row * max_blocks : row * max_blocks + used].to(torch.int32)
    return query, key_cache, value_cache, block_tables, torch.tensor(context_lens, dtype=torch.int32)


def dense_reference(query, key_cache, value_cache, block_tables, context_lens, scale):
    """Each sequence's keys laid out contiguously, then plain causal attention for its last position."""
    outputs = []
    block_size = key_cache.shape[1]
    for row, length in enumerate(context_lens.tolist()):
        blocks = block_tables[row, : -(-length // block_size)].long()
        keys = key_cache[blocks].flatten(0, 1)[:length]  # [length, KVH, D]
        values = value_cache[blocks].flatten(0, 1)[:length]
        outputs.append(dense_attention(query[row : row + 1], keys, values, scale))
    return torch.cat(outputs)  # [N, H, D]
