"""Reference paged inference engine: Llama model, block pool with prefix caching, token-budget scheduler.

Names load lazily, so importing the package needs no torch.
"""

import importlib

_EXPORTS = {
    "EngineConfig": "config",
    "LLMEngine": "engine",
    "load_model": "loader",
    "save_model": "loader",
    "TINY_CONFIG": "model_config",
    "LlamaConfig": "model_config",
    "SamplingParams": "sampling",
    "ByteTokenizer": "tokenizer",
    "StaticBatchEngine": "static_engine",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
