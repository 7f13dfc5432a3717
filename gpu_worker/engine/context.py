"""Attention contexts the model layers call: dense (one sequence, no cache) and paged (a batch over the block pool)."""

from dataclasses import dataclass

import torch

from .attention import dense_attention, gather_context


class DenseContext:
    """The reference: one whole sequence, causal attention, nothing cached."""

    def attend(self, layer_idx, query, key, value, scale) -> torch.Tensor:
        return dense_attention(query, key, value, scale)


@dataclass
class PagedContext:
    """Decode tokens first (one per sequence, paged attention, in groups of similar context length so the
    torch path pads little), then prefill chunks (cached prefix + chunk, causal)."""

    kv_cache: "KVCache"  # noqa: F821
    slot_mapping: torch.Tensor  # [T] flat slot of each new token
    decode_groups: list  # (first token, end token, block_tables [n, max_blocks] int32, context_lens [n] int32)
    prefills: list  # (first token index, num_tokens, context_len, block_table [blocks] int32)
    decode_attention: callable

    def attend(self, layer_idx, query, key, value, scale) -> torch.Tensor:
        key_cache, value_cache = self.kv_cache.layer(layer_idx)  # [num_blocks, block_size, KVH, D]
        key_cache.view(-1, *key_cache.shape[2:])[self.slot_mapping] = key.to(key_cache.dtype)
        value_cache.view(-1, *value_cache.shape[2:])[self.slot_mapping] = value.to(value_cache.dtype)
        out = torch.empty_like(query)  # [T, H, D]
        for start, end, block_tables, context_lens in self.decode_groups:
            out[start:end] = self.decode_attention(
                query[start:end], key_cache, value_cache, block_tables, context_lens, scale
            )
        for start, num_tokens, context_len, block_table in self.prefills:
            keys = gather_context(key_cache, block_table, context_len)  # [context_len, KVH, D]
            values = gather_context(value_cache, block_table, context_len)
            out[start : start + num_tokens] = dense_attention(query[start : start + num_tokens], keys, values, scale)
        return out
