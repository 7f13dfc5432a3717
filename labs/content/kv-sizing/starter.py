"""kv-sizing: fill in the three functions. Run checks the public cases; Submit checks them all."""


def kv_bytes_per_token(config: dict, dtype_bytes: int) -> int:
    """Bytes of keys and values one token takes across all layers."""
    raise NotImplementedError


def num_gpu_blocks(
    gpu_memory_bytes: int,
    gpu_memory_utilization: float,
    weight_bytes: int,
    activation_bytes: int,
    block_size: int,
    bytes_per_token: int,
) -> int:
    """Whole KV blocks that fit after the weights and activations; 0 when nothing is left."""
    raise NotImplementedError


def max_concurrent_seqs(num_blocks: int, block_size: int, seq_len: int) -> int:
    """Sequences of seq_len tokens the pool holds at once (each uses whole blocks)."""
    raise NotImplementedError
