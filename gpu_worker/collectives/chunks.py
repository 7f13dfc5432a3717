"""How a flat tensor of K elements is cut into N nearly equal chunks (the first K % N get one more)."""

from __future__ import annotations

import torch


def chunk_bounds(numel: int, parts: int, index: int) -> tuple[int, int]:
    """[start, end) of chunk `index` when `numel` elements are cut into `parts` chunks."""
    base, extra = divmod(numel, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


def chunk_sizes(numel: int, parts: int) -> list[int]:
    base, extra = divmod(numel, parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


def flat_view(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor as one flat view sharing its memory (collectives work in place)."""
    if not tensor.is_contiguous():
        raise ValueError("collectives work in place and need a contiguous tensor")
    return tensor.view(-1)
