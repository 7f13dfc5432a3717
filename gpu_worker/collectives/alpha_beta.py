"""The alpha-beta cost model T(K) = alpha * hops + beta * bytes for ring and double-binary-tree
all-reduce, fitted to measured times, and the message size where the two cross."""

from __future__ import annotations

import math

import numpy as np


def ring_terms(world_size: int) -> tuple[int, float]:
    """(hops on the critical path, bytes sent per byte of message): 2(N-1) steps, 2(N-1)/N."""
    n = world_size
    return 2 * (n - 1), 2 * (n - 1) / n


def tree_terms(world_size: int) -> tuple[int, float]:
    """Double binary tree: depth floor(log2 N) up and down; a rank that is inner in one tree
    sends its half up once and to two children, a leaf in the other sends its half up:
    about 2 bytes per byte of message."""
    return 2 * int(math.floor(math.log2(world_size))) if world_size > 1 else 0, 2.0


TERMS = {"ring": ring_terms, "tree": tree_terms}


def fit(sizes: list[int], seconds: list[float], hops: int, volume: float) -> tuple[float, float]:
    """(alpha seconds per hop, beta seconds per byte) >= 0 minimising the relative error of
    alpha*hops + beta*volume*size against the measured seconds (small sizes count too)."""
    if len(sizes) != len(seconds) or len(sizes) < 2:
        raise ValueError("fit needs at least two (size, seconds) pairs of equal length")
    size = np.asarray(sizes, dtype=float)
    measured = np.asarray(seconds, dtype=float)
    design = np.stack([np.full_like(size, hops), volume * size], axis=1) / measured[:, None]  # [points, 2]
    target = np.ones_like(size)
    (alpha, beta), *_ = np.linalg.lstsq(design, target, rcond=None)
    if alpha < 0:  # keep the model physical: drop the negative term and refit the other
        alpha, beta = 0.0, np.linalg.lstsq(design[:, 1:], target, rcond=None)[0][0]
    elif beta < 0:
        alpha, beta = np.linalg.lstsq(design[:, :1], target, rcond=None)[0][0], 0.0
    return max(0.0, float(alpha)), max(0.0, float(beta))


def predict(alpha: float, beta: float, hops: int, volume: float, size: float) -> float:
    return alpha * hops + beta * volume * size


def model_crossover(ring: tuple[float, float], tree: tuple[float, float], world_size: int) -> float | None:
    """Bytes above which the fitted ring beats the fitted tree (None: no crossing at K > 0)."""
    ring_hops, ring_volume = ring_terms(world_size)
    tree_hops, tree_volume = tree_terms(world_size)
    latency_gap = ring[0] * ring_hops - tree[0] * tree_hops  # ring's extra fixed cost
    slope_gap = tree[1] * tree_volume - ring[1] * ring_volume  # tree's extra cost per byte
    if latency_gap <= 0 or slope_gap <= 0:
        return None
    return latency_gap / slope_gap


def measured_crossover(sizes: list[int], ring_seconds: list[float], tree_seconds: list[float]) -> int | None:
    """The smallest measured size from which ring is never slower than tree (None when tree
    is faster at the largest size, or never faster at all)."""
    tree_wins = [tree < ring for ring, tree in zip(ring_seconds, tree_seconds)]
    if not any(tree_wins) or tree_wins[-1]:
        return None
    last_win = max(index for index, win in enumerate(tree_wins) if win)
    return sizes[last_win + 1]
