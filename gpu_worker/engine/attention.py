"""Reference attention in torch: dense causal attention, and paged decode attention (the lab signature)."""

from dataclasses import dataclass

import torch


def dense_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, scale: float) -> torch.Tensor:
    """Causal attention where the T queries are the last T of the S key positions.

    query [T, H, D]; key, value [S, KVH, D]; returns [T, H, D] in the query's dtype.
    """
    num_queries, num_heads, head_dim = query.shape
    num_keys, num_kv_heads = key.shape[0], key.shape[1]
    group = num_heads // num_kv_heads
    q = query.float().view(num_queries, num_kv_heads, group, head_dim)  # [T, KVH, G, D]
    scores = torch.einsum("tkgd,skd->kgts", q, key.float()) * scale  # [KVH, G, T, S]
    query_pos = torch.arange(num_keys - num_queries, num_keys, device=query.device)  # [T]
    key_pos = torch.arange(num_keys, device=query.device)  # [S]
    visible = key_pos[None, :] <= query_pos[:, None]  # [T, S]
    scores = scores.masked_fill(~visible, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("kgts,skd->tkgd", probs, value.float())  # [T, KVH, G, D]
    return out.reshape(num_queries, num_heads, head_dim).to(query.dtype)


def paged_attention_decode(query, key_cache, value_cache, block_tables, context_lens, scale) -> torch.Tensor:
    """One query token per sequence attending over its cached context through its block table.

    query [N, H, D]; key_cache, value_cache [num_blocks, block_size, KVH, D];
    block_tables [N, max_blocks_per_seq] int32 (entries past a sequence's last block are never used);
    context_lens [N] int32. Returns [N, H, D] in the query's dtype.
    """
    num_seqs, num_heads, head_dim = query.shape
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    group = num_heads // num_kv_heads
    lens = context_lens.to(device=query.device, dtype=torch.long)  # [N]
    blocks_per_seq = (lens + block_size - 1) // block_size  # [N]
    # on CUDA the caller's table width bounds it (reading the longest length back would stall the stream)
    max_blocks = block_tables.shape[1] if query.is_cuda else int(blocks_per_seq.max())
    block_index = torch.arange(max_blocks, device=query.device)  # [MB]
    owned = block_index[None, :] < blocks_per_seq[:, None]  # [N, MB]
    tables = torch.where(owned, block_tables[:, :max_blocks].to(query.device).long(), 0)  # [N, MB]
    span = max_blocks * block_size
    flat = tables.flatten()
    keys = (
        key_cache.index_select(0, flat).view(num_seqs, span, num_kv_heads, head_dim).transpose(1, 2)
    )  # [N, KVH, S, D]
    values = value_cache.index_select(0, flat).view(num_seqs, span, num_kv_heads, head_dim).transpose(1, 2)
    q = query.reshape(num_seqs, num_kv_heads, group, head_dim)  # [N, KVH, G, D]
    scores = torch.matmul(q.float(), keys.float().transpose(-1, -2)) * scale  # [N, KVH, G, S]
    outside = torch.arange(span, device=query.device)[None, :] >= lens[:, None]  # [N, S]
    scores.masked_fill_(outside[:, None, None, :], float("-inf"))
    out = torch.matmul(torch.softmax(scores, dim=-1), values.float())  # [N, KVH, G, D]
    return out.reshape(num_seqs, num_heads, head_dim).to(query.dtype)


@dataclass
class PrefillBatch:
    """Where a step's prefill chunks are: host ints for shapes, device tensors for indexing (no read-back)."""

    block_tables: torch.Tensor  # [P, width] int32
    context_lens: torch.Tensor  # [P] long: cached prefix + chunk
    query_lens: torch.Tensor  # [P] long
    token_index: torch.Tensor  # [sum(query_lens)] long: each chunk token's place in a [P, longest_query] grid
    longest_query: int
    max_context_len: int


def paged_attention_prefill(query, key_cache, value_cache, batch: PrefillBatch, scale: float) -> torch.Tensor:
    """Prefill chunks of several sequences in one call: chunk i's queries are the last query_lens[i] of its
    context_lens[i] positions, attending causally over its cached prefix and itself.

    query [sum(query_lens), H, D], chunks concatenated; returns the same shape. One chunk is dense attention
    over its gathered context; several are padded to the longest chunk and context and run as one batch.
    """
    num_chunks = batch.block_tables.shape[0]
    if num_chunks == 1:
        keys = gather_context(key_cache, batch.block_tables[0], batch.max_context_len)  # [S, KVH, D]
        values = gather_context(value_cache, batch.block_tables[0], batch.max_context_len)
        return dense_attention(query, keys, values, scale)
    num_heads, head_dim = query.shape[1:]
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    group, device, longest = num_heads // num_kv_heads, query.device, batch.longest_query
    max_blocks = -(-batch.max_context_len // block_size)
    span = max_blocks * block_size
    flat = batch.block_tables[:, :max_blocks].long().flatten()
    keys = key_cache.index_select(0, flat).view(num_chunks, span, num_kv_heads, head_dim).float()  # [P, S, KVH, D]
    values = value_cache.index_select(0, flat).view(num_chunks, span, num_kv_heads, head_dim).float()
    padded = query.new_zeros(num_chunks * longest, num_heads, head_dim)
    padded[batch.token_index] = query
    q = padded.float().view(num_chunks, longest, num_kv_heads, group, head_dim)  # [P, Q, KVH, G, D]
    scores = torch.einsum("pqkgd,pskd->pkgqs", q, keys) * scale  # [P, KVH, G, Q, S]
    first = batch.context_lens - batch.query_lens  # [P] position of each chunk's first query
    query_pos = first[:, None] + torch.arange(longest, device=device)[None, :]  # [P, Q]
    visible = torch.arange(span, device=device)[None, None, :] <= query_pos[:, :, None]  # [P, Q, S]
    scores = scores.masked_fill(~visible[:, None, None], float("-inf"))
    out = torch.einsum("pkgqs,pskd->pqkgd", torch.softmax(scores, dim=-1), values)  # [P, Q, KVH, G, D]
    return out.reshape(num_chunks * longest, num_heads, head_dim)[batch.token_index].to(query.dtype)


def gather_context(cache: torch.Tensor, block_table: torch.Tensor, context_len: int) -> torch.Tensor:
    """The first `context_len` cached tokens of one sequence. cache [num_blocks, block_size, KVH, D]."""
    block_size = cache.shape[1]
    num_blocks = (context_len + block_size - 1) // block_size
    blocks = cache[block_table[:num_blocks].long()]  # [nb, block_size, KVH, D]
    return blocks.reshape(-1, cache.shape[2], cache.shape[3])[:context_len]  # [context_len, KVH, D]
