"""Hidden cases for `paged-attention`: each input the statement allows drawn over its range, its edges in every submit.

The statement's ranges (labs/content/paged-attention/statement.md, "What the inputs can be") are the constants
below. Each submit holds the GQA x block-size grid plus one case per edge a wrong kernel could slip past: a group
that is not a power of two, MQA with many heads, one sequence, one-token blocks, the largest blocks, contexts of
exactly whole blocks with a table row and no column to spare, a scale that is not head_dim ** -0.5, scores that
overflow a softmax without its maximum subtracted, a prefix shared by every sequence, a head_dim that is not a
power of two, the longest context, and a full batch of mixed lengths."""

import random

from gpu_worker.graders.paged_inputs import PagedCase

MAX_SEQS = 16
MAX_KV_HEADS = 8
MAX_GROUP = 16
HEAD_DIMS = tuple(range(16, 257, 16))  # multiples of 16 up to 256
BLOCK_SIZES = (1, 2, 4, 8, 16, 32, 64)
MAX_CONTEXT = 2048
SCALE_RANGE = (0.01, 2.0)


def _lengths(rng: random.Random, block_size: int, count: int, longest: int = 6) -> tuple:
    """Lengths on, one under and one over block boundaries, single tokens, and anything up to `longest` blocks."""

    def one() -> int:
        return rng.choice([1, max(1, block_size - 1), block_size, block_size + 1, rng.randint(2, longest * block_size)])

    return tuple(one() for _ in range(count))


def grid_cases(rng: random.Random) -> list[PagedCase]:
    cases = []
    for group in (1, 4, 8):
        for block_size in (8, 16, 32):
            num_seqs = rng.randint(1, 6)
            cases.append(
                PagedCase(
                    f"gqa{group}-bs{block_size}",
                    num_seqs,
                    rng.choice([1, 2, 4]),
                    group,
                    rng.choice(HEAD_DIMS[:8]),
                    block_size,
                    _lengths(rng, block_size, num_seqs),
                    padding=rng.choice(["poison", "poison", "out-of-range"]),
                )
            )
    return cases


def edge_cases(rng: random.Random) -> list[PagedCase]:
    padding = lambda: rng.choice(["poison", "out-of-range"])  # noqa: E731
    head_dim = lambda: rng.choice(HEAD_DIMS[:8])  # noqa: E731
    cases = []

    group, kv_heads = rng.choice([3, 5, 6, 7, 12]), rng.randint(2, 4)  # head h -> h // group, never h % kv_heads
    cases.append(PagedCase("gqa-group-not-a-power-of-two", 3, kv_heads, group, head_dim(), 16, _lengths(rng, 16, 3)))
    cases.append(PagedCase("mqa-16-heads", 3, 1, MAX_GROUP, head_dim(), 8, _lengths(rng, 8, 3), padding()))
    size = rng.choice(BLOCK_SIZES)
    cases.append(
        PagedCase("one-sequence", 1, rng.randint(1, 4), rng.randint(1, 4), head_dim(), size, _lengths(rng, size, 1))
    )
    cases.append(PagedCase("block-size-1", 4, 2, 2, head_dim(), 1, _lengths(rng, 1, 4, longest=64), "out-of-range"))
    size = BLOCK_SIZES[-1]
    cases.append(
        PagedCase("block-size-64", 4, 2, 4, head_dim(), size, (size - 1, size, size + 1, 2 * size + 1), padding())
    )
    size = rng.choice([2, 8, 16, 32])
    whole = tuple(size * rng.randint(1, 6) for _ in range(4))
    cases.append(PagedCase("exactly-whole-blocks", 4, 2, 2, head_dim(), size, whole, "out-of-range", padding_columns=0))
    dim = head_dim()
    usual = dim**-0.5
    scale = rng.choice(
        [s for s in (0.01, 0.03, 0.3, 1.0, 2.0, round(rng.uniform(*SCALE_RANGE), 4)) if abs(s / usual - 1) > 0.2]
    )
    lens = tuple(rng.randint(2, 64) for _ in range(3))  # one token gives its value whatever the scale: two or more
    cases.append(PagedCase("scale-not-head-dim", 3, 2, 2, dim, 16, lens, padding(), scale=scale))
    cases.append(
        PagedCase("scores-over-100", 3, 2, 4, head_dim(), 16, _lengths(rng, 16, 3), padding(), equal_scores=120.0)
    )
    size, shared = rng.choice([8, 16]), rng.randint(1, 3)
    lens = (shared * size,) + tuple(shared * size + rng.randint(1, 3 * size) for _ in range(rng.randint(1, 3)))
    cases.append(
        PagedCase("shared-prefix", len(lens), 2, 2, head_dim(), size, lens, padding(), shared_prefix_blocks=shared)
    )
    odd_dim = rng.choice([d for d in HEAD_DIMS if d & (d - 1)])
    cases.append(PagedCase("head-dim-not-a-power-of-two", 2, 2, 2, odd_dim, 16, _lengths(rng, 16, 2), padding()))
    cases.append(PagedCase("largest-head-dim", 2, 1, 2, HEAD_DIMS[-1], 16, _lengths(rng, 16, 2), padding()))
    cases.append(PagedCase("longest-context", 2, 2, 4, 64, 16, (MAX_CONTEXT, rng.randint(1, 50)), padding()))
    size = rng.choice(BLOCK_SIZES[2:])
    cases.append(PagedCase("full-batch", MAX_SEQS, 1, 8, 32, size, _lengths(rng, size, MAX_SEQS), padding()))
    cases.append(PagedCase("many-single-tokens", 8, 1, 8, 32, 32, (1,) * 8))
    return cases


def in_range(case: PagedCase) -> bool:
    scale = case.scale if case.scale is not None else case.head_dim**-0.5
    return (
        1 <= case.num_seqs <= MAX_SEQS
        and 1 <= case.num_kv_heads <= MAX_KV_HEADS
        and 1 <= case.group <= MAX_GROUP
        and case.head_dim in HEAD_DIMS
        and case.block_size in BLOCK_SIZES
        and min(case.context_lens) >= 1
        and max(case.context_lens) <= MAX_CONTEXT
        and SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]
    )


def hidden_cases(rng: random.Random) -> list[PagedCase]:
    """The GQA x block size grid, then every edge of the statement's ranges."""
    return grid_cases(rng) + edge_cases(rng)
