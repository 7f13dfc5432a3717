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
    scores = torch.einsum("tkgd,skd->kgts", q, key.float()).mul_(scale)  # [KVH, G, T, S]
    if num_queries > 1:
        query_pos = torch.arange(num_keys - num_queries, num_keys, device=query.device)  # [T]
        key_pos = torch.arange(num_keys, device=query.device)  # [S]
        hidden = key_pos[None, :] > query_pos[:, None]  # [T, S]
        scores.masked_fill_(hidden, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("kgts,skd->tkgd", probs, value.float())  # [T, KVH, G, D]
    return out.reshape(num_queries, num_heads, head_dim).to(query.dtype)


def paged_attention_decode(query, key_cache, value_cache, block_tables, context_lens, scale) -> torch.Tensor:
    """One query token per sequence attending over its cached context through its block table.

    query [N, H, D]; key_cache, value_cache [num_blocks, block_size, KVH, D];
    block_tables [N, max_blocks_per_seq] int32 (entries past a sequence's last block are never used);
    context_lens [N] int32. Returns [N, H, D] in the query's dtype.

    The torch path gathers each sequence's blocks, padded to the longest context it is batched with. On CPU
    the sequences are batched in groups of similar length (each at least 3/4 of its group's longest), so
    the padding costs little; on CUDA (where this is the fallback from Triton) they go as one batch as wide
    as the table, since reading the lengths back would stall the stream.
    """
    lens = context_lens.to(device=query.device, dtype=torch.long)  # [N]
    if query.is_cuda:
        return _decode_batch(query, key_cache, value_cache, block_tables, lens, block_tables.shape[1], scale)
    block_size, num_seqs = key_cache.shape[1], query.shape[0]
    order = torch.argsort(lens, descending=True, stable=True)  # [N]
    sorted_lens = lens[order].tolist()
    out, start = None, 0
    while start < num_seqs:
        end = start + 1
        while end < num_seqs and sorted_lens[end] >= 0.75 * sorted_lens[start]:
            end += 1
        max_blocks = -(-sorted_lens[start] // block_size)
        if start == 0 and end == num_seqs:
            return _decode_batch(query, key_cache, value_cache, block_tables, lens, max_blocks, scale)
        out = torch.empty_like(query) if out is None else out
        rows = order[start:end]
        out[rows] = _decode_batch(
            query[rows], key_cache, value_cache, block_tables[rows], lens[rows], max_blocks, scale
        )
        start = end
    return out


def _decode_batch(query, key_cache, value_cache, block_tables, lens, max_blocks, scale) -> torch.Tensor:
    """Decode attention for sequences whose contexts fit in max_blocks blocks; one pair of batched matrix
    products per KV head on strided views of the gathered blocks (no copy into a head-major layout)."""
    num_seqs, num_heads, head_dim = query.shape
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    group = num_heads // num_kv_heads
    blocks_per_seq = (lens + block_size - 1) // block_size  # [N]
    owned = torch.arange(max_blocks, device=query.device)[None, :] < blocks_per_seq[:, None]  # [N, MB]
    tables = torch.where(owned, block_tables[:, :max_blocks].to(query.device).long(), 0)  # [N, MB]
    span = max_blocks * block_size
    flat = tables.flatten()
    keys = key_cache.index_select(0, flat).view(num_seqs, span, num_kv_heads, head_dim)  # [N, S, KVH, D]
    values = value_cache.index_select(0, flat).view(num_seqs, span, num_kv_heads, head_dim)
    q = query.reshape(num_seqs, num_kv_heads, group, head_dim).float()  # [N, KVH, G, D]
    outside = torch.arange(span, device=query.device)[None, :] >= lens[:, None]  # [N, S]
    out = torch.empty(num_seqs, num_kv_heads, group, head_dim, device=query.device)  # [N, KVH, G, D] fp32
    for head in range(num_kv_heads):
        scores = torch.bmm(q[:, head], keys[:, :, head].float().transpose(1, 2)) * scale  # [N, G, S]
        scores.masked_fill_(outside[:, None, :], float("-inf"))
        out[:, head] = torch.bmm(torch.softmax(scores, dim=-1), values[:, :, head].float())  # [N, G, D]
    return out.reshape(num_seqs, num_heads, head_dim).to(query.dtype)


@dataclass
class PrefillBatch:
    """Where a step's prefill chunks are: host ints for shapes, device tensors for indexing (no read-back)."""

    block_tables: torch.Tensor  # [P, width] int32
    context_lens: torch.Tensor  # [P] long: cached prefix + chunk
    query_lens: torch.Tensor  # [P] long
    token_index: torch.Tensor  # [sum(query_lens)] long: each chunk token's place in a [P, longest_query] grid
    query_lens_host: list[int]  # the same lengths as host ints, for shapes
    context_lens_host: list[int]

    @property
    def longest_query(self) -> int:
        return max(self.query_lens_host)

    @property
    def max_context_len(self) -> int:
        return max(self.context_lens_host)


def paged_attention_prefill(query, key_cache, value_cache, batch: PrefillBatch, scale: float) -> torch.Tensor:
    """Prefill chunks of several sequences in one call: chunk i's queries are the last query_lens[i] of its
    context_lens[i] positions, attending causally over its cached prefix and itself.

    query [sum(query_lens), H, D], chunks concatenated; returns the same shape. One chunk is dense attention
    over its gathered context; several are padded to the longest chunk and context and run as one batch.
    """
    num_chunks = batch.block_tables.shape[0]
    work = sum(q * c for q, c in zip(batch.query_lens_host, batch.context_lens_host))
    if num_chunks == 1 or num_chunks * batch.longest_query * batch.max_context_len > 1.5 * work:
        # one chunk, or chunks so uneven that padding them to one batch costs more than it saves
        out, start = [], 0
        for index, (num_queries, context_len) in enumerate(zip(batch.query_lens_host, batch.context_lens_host)):
            keys = gather_context(key_cache, batch.block_tables[index], context_len)  # [S, KVH, D]
            values = gather_context(value_cache, batch.block_tables[index], context_len)
            out.append(dense_attention(query[start : start + num_queries], keys, values, scale))
            start += num_queries
        return out[0] if num_chunks == 1 else torch.cat(out)
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
