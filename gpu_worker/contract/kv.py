"""KV-cache sizing arithmetic: the `kv-sizing` lab's reference and the course calculator's formulas, in one place."""


def kv_bytes_per_token(config: dict, dtype_bytes: int) -> int:
    """Bytes one token's keys and values take across all layers."""
    num_heads = config["num_attention_heads"]
    num_kv_heads = config.get("num_key_value_heads") or num_heads
    head_dim = config.get("head_dim") or config["hidden_size"] // num_heads
    return 2 * config["num_hidden_layers"] * num_kv_heads * head_dim * dtype_bytes


def num_gpu_blocks(
    gpu_memory_bytes: int,
    gpu_memory_utilization: float,
    weight_bytes: int,
    activation_bytes: int,
    block_size: int,
    bytes_per_token: int,
) -> int:
    """Blocks that fit in the memory left after weights and the activation peak; 0 when none."""
    left = int(gpu_memory_bytes * gpu_memory_utilization) - weight_bytes - activation_bytes
    return blocks_in(left, block_size, bytes_per_token)


def blocks_in(budget_bytes: int, block_size: int, bytes_per_token: int) -> int:
    """Whole blocks of `block_size` tokens that fit in `budget_bytes`; 0 when none (or the budget is negative)."""
    return max(0, budget_bytes // (block_size * bytes_per_token))


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks that hold `tokens` tokens: the last one may be partly filled."""
    return -(-tokens // block_size)


def max_concurrent_seqs(num_blocks: int, block_size: int, seq_len: int) -> int:
    """How many sequences of `seq_len` tokens the pool holds at once."""
    return num_blocks // blocks_for(seq_len, block_size)
