"""Llama (RMSNorm, rotary embeddings, grouped-query attention, SwiGLU) with `LlamaForCausalLM` parameter names.

Attention reads and writes the KV cache through a context object (dense, paged or contiguous),
so the same layers serve the reference, the paged engine and the static baseline.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

from .model_config import LlamaConfig


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rope_inv_freq(config: LlamaConfig) -> torch.Tensor:
    """Rotary frequencies, with Llama 3 frequency scaling when the config asks for it."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))  # [dim / 2]
    scaling = config.rope_scaling or {}
    if scaling.get("rope_type", scaling.get("type")) != "llama3":
        return inv_freq
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_len = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > old_len / low, inv_freq / factor, inv_freq)
    smooth = (old_len / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= old_len / high) & (wavelen <= old_len / low)
    return torch.where(medium, smoothed, scaled)


class RotaryEmbedding(nn.Module):
    """cos/sin tables computed in fp32 and cast only at use, as transformers does: inv_freq in bf16 keeps
    3 significant digits, and position x inv_freq drifts by whole radians past a few thousand tokens."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.register_buffer("inv_freq", rope_inv_freq(config), persistent=False)

    def _apply(self, fn, recurse=True):
        # model.to(dtype=bf16) reaches buffers through here; follow device moves, keep the fp32 values
        inv_freq = self.inv_freq
        super()._apply(fn, recurse)
        self.inv_freq = inv_freq.to(device=self.inv_freq.device)
        return self

    def forward(self, positions: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        freqs = positions.float()[:, None] * self.inv_freq[None, :]  # [T, head_dim / 2], fp32
        emb = torch.cat((freqs, freqs), dim=-1)  # [T, head_dim]
        return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    # x [T, heads, head_dim]; cos, sin [T, head_dim]
    return x * cos[:, None, :] + rotate_half(x) * sin[:, None, :]


class LlamaAttention(nn.Module):
    def __init__(self, config: LlamaConfig, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.num_heads, self.num_kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = config.head_dim
        self.scale = self.head_dim**-0.5
        bias = config.attention_bias
        self.q_proj = nn.Linear(config.hidden_size, self.num_heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(config.hidden_size, self.num_kv_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(config.hidden_size, self.num_kv_heads * self.head_dim, bias=bias)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, config.hidden_size, bias=bias)

    def forward(self, x, cos, sin, context) -> torch.Tensor:
        tokens = x.shape[0]
        q = self.q_proj(x).view(tokens, self.num_heads, self.head_dim)  # [T, H, D]
        k = self.k_proj(x).view(tokens, self.num_kv_heads, self.head_dim)  # [T, KVH, D]
        v = self.v_proj(x).view(tokens, self.num_kv_heads, self.head_dim)  # [T, KVH, D]
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        out = context.attend(self.layer_idx, q, k, v, self.scale)  # [T, H, D]
        return self.o_proj(out.reshape(tokens, self.num_heads * self.head_dim))


class LlamaMLP(nn.Module):
    def __init__(self, config: LlamaConfig):
        super().__init__()
        bias = config.mlp_bias
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=bias)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=bias)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config: LlamaConfig, layer_idx: int):
        super().__init__()
        self.self_attn = LlamaAttention(config, layer_idx)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)

    def forward(self, x, cos, sin, context) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, context)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(nn.Module):
    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.rotary_emb = RotaryEmbedding(config)

    def forward(self, input_ids, positions, context) -> torch.Tensor:
        x = self.embed_tokens(input_ids)  # [T, hidden]
        cos, sin = self.rotary_emb(positions, x.dtype)  # [T, head_dim]
        for layer in self.layers:
            x = layer(x, cos, sin, context)
        return self.norm(x)


class LlamaForCausalLM(nn.Module):
    """Token ids of several sequences, flattened to one dimension, in; hidden states out."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, input_ids, positions, context) -> torch.Tensor:
        return self.model(input_ids, positions, context)  # [T, hidden]

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden).float()  # [N, vocab]

    @property
    def device(self) -> torch.device:
        return self.lm_head.weight.device

    @property
    def dtype(self) -> torch.dtype:
        return self.lm_head.weight.dtype
