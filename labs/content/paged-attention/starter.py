"""paged-attention: one decode step of attention over a paged KV cache."""

import torch


def paged_attention_decode(query, key_cache, value_cache, block_tables, context_lens, scale):
    """query [num_seqs, num_heads, head_dim] -> output of the same shape and dtype.

    key_cache, value_cache [num_blocks, block_size, num_kv_heads, head_dim];
    block_tables [num_seqs, max_blocks_per_seq] int32; context_lens [num_seqs] int32.
    """
    num_seqs, num_heads, head_dim = query.shape
    block_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    output = torch.empty_like(query)
    for seq in range(num_seqs):
        length = int(context_lens[seq])
        # 1. find the physical blocks that hold this sequence's `length` tokens
        # 2. gather its keys and values, keeping only the first `length` tokens
        # 3. scores = query . key * scale, per query head, using the right KV head
        # 4. softmax over the tokens, weighted sum of the values
        raise NotImplementedError
    return output
