"""Attention contexts the model layers call: dense (one sequence, no cache) and paged (a batch over the block pool)."""

from dataclasses import dataclass

import torch

from .attention import PrefillBatch, dense_attention, paged_attention_prefill


class DenseContext:
    """The reference: one whole sequence, causal attention, nothing cached."""

    def attend(self, layer_idx, query, key, value, scale) -> torch.Tensor:
        return dense_attention(query, key, value, scale)


@dataclass
class PagedContext:
    """A step's batch: decode tokens first (one per sequence), then prefill chunks (cached prefix + chunk,
    causal). Per layer: one cache write, one decode-kernel call for all decodes, one call for all chunks."""

    kv_cache: "KVCache"  # noqa: F821
    slot_mapping: torch.Tensor  # [T] flat slot of each new token
    num_decodes: int
    decode_tables: torch.Tensor  # [num_decodes, width] int32
    decode_lens: torch.Tensor  # [num_decodes] int32, context including this step's token
    prefill: PrefillBatch | None
    decode_attention: callable

    def attend(self, layer_idx, query, key, value, scale) -> torch.Tensor:
        key_cache, value_cache = self.kv_cache.layer(layer_idx)  # [num_blocks, block_size, KVH, D]
        key_cache.view(-1, *key_cache.shape[2:])[self.slot_mapping] = key.to(key_cache.dtype)
        value_cache.view(-1, *value_cache.shape[2:])[self.slot_mapping] = value.to(value_cache.dtype)
        n = self.num_decodes
        outputs = []
        if n:
            outputs.append(
                self.decode_attention(query[:n], key_cache, value_cache, self.decode_tables, self.decode_lens, scale)
            )
        if self.prefill is not None:
            outputs.append(paged_attention_prefill(query[n:], key_cache, value_cache, self.prefill, scale))
        return outputs[0] if len(outputs) == 1 else torch.cat(outputs)
