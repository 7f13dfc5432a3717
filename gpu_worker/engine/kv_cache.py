"""The pre-allocated KV pool [num_layers, 2, num_blocks, block_size, num_kv_heads, head_dim], plus a CPU pool for swap."""

import torch

from .model_config import LlamaConfig


class KVCache:
    def __init__(
        self,
        config: LlamaConfig,
        num_blocks: int,
        block_size: int,
        dtype: torch.dtype,
        device: torch.device | str,
        num_cpu_blocks: int = 0,
    ):
        shape = (config.num_hidden_layers, 2, num_blocks, block_size, config.num_key_value_heads, config.head_dim)
        self.tensor = torch.zeros(shape, dtype=dtype, device=device)  # [L, 2, num_blocks, block_size, KVH, D]
        cpu_shape = (shape[0], 2, num_cpu_blocks, *shape[3:])
        pin = torch.device(device).type == "cuda"
        self.cpu = torch.zeros(cpu_shape, dtype=dtype, pin_memory=pin)  # [L, 2, num_cpu_blocks, block_size, KVH, D]

    def layer(self, layer_idx: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.tensor[layer_idx, 0], self.tensor[layer_idx, 1]  # each [num_blocks, block_size, KVH, D]

    def copy_block(self, src: int, dst: int) -> None:
        self.tensor[:, :, dst] = self.tensor[:, :, src]

    def swap_out(self, gpu_blocks: list[int], cpu_blocks: list[int]) -> None:
        gpu_index = torch.tensor(gpu_blocks, device=self.tensor.device)
        self.cpu[:, :, torch.tensor(cpu_blocks)] = self.tensor[:, :, gpu_index].to("cpu")

    def swap_in(self, cpu_blocks: list[int], gpu_blocks: list[int]) -> None:
        gpu_index = torch.tensor(gpu_blocks, device=self.tensor.device)
        self.tensor[:, :, gpu_index] = self.cpu[:, :, torch.tensor(cpu_blocks)].to(self.tensor.device)
