"""The Llama model configuration, read from a Hugging Face style `config.json` dict."""

from dataclasses import dataclass, fields

TINY_CONFIG = {
    "vocab_size": 512,
    "hidden_size": 256,
    "intermediate_size": 688,
    "num_hidden_layers": 4,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "max_position_embeddings": 2048,
    "rope_theta": 10000.0,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": False,
    "bos_token_id": 256,
    "eos_token_id": 257,
}


@dataclass
class LlamaConfig:
    vocab_size: int = 512
    hidden_size: int = 256
    intermediate_size: int = 688
    num_hidden_layers: int = 4
    num_attention_heads: int = 8
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    max_position_embeddings: int = 2048
    rope_theta: float = 10000.0
    rope_scaling: dict | None = None
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    bos_token_id: int | None = None
    eos_token_id: int | list | None = None

    def __post_init__(self):
        if self.num_key_value_heads is None:
            self.num_key_value_heads = self.num_attention_heads
        if self.head_dim is None and self.num_attention_heads > 0:
            self.head_dim = self.hidden_size // self.num_attention_heads
        for name in (
            "vocab_size",
            "hidden_size",
            "intermediate_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "max_position_embeddings",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) must be divisible by "
                f"num_key_value_heads ({self.num_key_value_heads})"
            )
        if self.head_dim % 2:
            raise ValueError(f"head_dim must be even for rotary embeddings, got {self.head_dim}")
        rope_type = (self.rope_scaling or {}).get("rope_type", (self.rope_scaling or {}).get("type", "default"))
        if rope_type not in ("default", "llama3"):
            raise ValueError(f"rope_scaling type {rope_type!r} is not supported (default or llama3)")

    @classmethod
    def from_dict(cls, config: dict) -> "LlamaConfig":
        """Keeps the keys this model uses and ignores the rest of a `config.json`."""
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in config.items() if key in known}
        # transformers 5 writes rope settings as one `rope_parameters` dict (theta included).
        rope = config.get("rope_parameters")
        if isinstance(rope, dict):
            if "rope_theta" in rope:
                values["rope_theta"] = rope["rope_theta"]
            if rope.get("rope_type", rope.get("type", "default")) != "default":
                values["rope_scaling"] = rope
        return cls(**values)

    @property
    def eos_token_ids(self) -> list[int]:
        if self.eos_token_id is None:
            return []
        return list(self.eos_token_id) if isinstance(self.eos_token_id, list) else [self.eos_token_id]
