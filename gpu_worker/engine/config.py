"""Engine configuration: pool size, batch limits, preemption mode, and the two plug points the labs use."""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class EngineConfig:
    block_size: int = 16
    max_num_seqs: int = 64
    max_num_batched_tokens: int = 512
    max_model_len: int | None = None  # None: the model's max_position_embeddings
    num_gpu_blocks: int | None = None  # None: sized from the memory budget below
    kv_cache_memory_bytes: int = 64 * 2**20  # CPU budget for the KV pool
    gpu_memory_utilization: float = 0.9  # CUDA: share of device memory for weights, activations and KV
    enable_prefix_caching: bool = True
    preemption_mode: str = "recompute"  # or "swap"
    num_cpu_blocks: int = 256  # swap space, in blocks
    decode_attention: Callable | None = None  # lab signature; None: torch on CPU, Triton on CUDA
    policy: Callable | None = None  # schedule(state) -> {"schedule", "preempt"}; None: reference_policy

    def __post_init__(self):
        for name in ("block_size", "max_num_seqs", "max_num_batched_tokens"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) <= 0:
                raise ValueError(f"{name} must be a positive int, got {getattr(self, name)!r}")
        if self.max_model_len is not None and self.max_model_len <= 0:
            raise ValueError(f"max_model_len must be positive, got {self.max_model_len}")
        if self.num_gpu_blocks is not None and self.num_gpu_blocks <= 0:
            raise ValueError(f"num_gpu_blocks must be positive, got {self.num_gpu_blocks}")
        if self.kv_cache_memory_bytes <= 0:
            raise ValueError(f"kv_cache_memory_bytes must be positive, got {self.kv_cache_memory_bytes}")
        if not 0 < self.gpu_memory_utilization <= 1:
            raise ValueError(f"gpu_memory_utilization must be in (0, 1], got {self.gpu_memory_utilization}")
        if self.preemption_mode not in ("recompute", "swap"):
            raise ValueError(f"preemption_mode must be 'recompute' or 'swap', got {self.preemption_mode!r}")
        if self.num_cpu_blocks < 0:
            raise ValueError(f"num_cpu_blocks must be >= 0, got {self.num_cpu_blocks}")
        for name in ("decode_attention", "policy"):
            if getattr(self, name) is not None and not callable(getattr(self, name)):
                raise ValueError(f"{name} must be callable or None")
