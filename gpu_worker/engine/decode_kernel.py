"""Which paged-decode kernel the engine uses: Triton on CUDA, the torch one otherwise or when Triton fails.

Triton compiles on first launch, and that needs a C compiler, Python headers and a driver it supports; a
host missing any of them must still grade, so the first failure switches this process to the torch kernel
for good and says why, once, in the log.
"""

import logging

import torch

from .attention import paged_attention_decode

log = logging.getLogger(__name__)


class TritonDecodeWithFallback:
    """The lab signature; runs the Triton kernel until it fails once, then the torch kernel."""

    def __init__(self):
        self.failure: str | None = None

    def __call__(self, query, key_cache, value_cache, block_tables, context_lens, scale) -> torch.Tensor:
        if self.failure is None:
            try:
                from .triton_attention import paged_attention_decode_triton

                return paged_attention_decode_triton(query, key_cache, value_cache, block_tables, context_lens, scale)
            except torch.cuda.OutOfMemoryError:
                raise  # not a Triton problem: the torch kernel would need more memory still
            except Exception as exc:
                self.failure = f"{type(exc).__name__}: {str(exc).strip()[:500]}"
                log.warning("Triton paged decode failed, using the torch kernel from now on: %s", self.failure)
        return paged_attention_decode(query, key_cache, value_cache, block_tables, context_lens, scale)


triton_decode_with_fallback = TritonDecodeWithFallback()  # one per process, so the warning is logged once


def default_decode_attention(device: torch.device):
    return triton_decode_with_fallback if device.type == "cuda" else paged_attention_decode
