"""Input cases for `paged-attention`: shuffled block tables, poisoned padding and unused slots, GQA, odd lengths,
shared prefixes, any scale, scores large enough to overflow a softmax that does not subtract the maximum."""

import random
from dataclasses import dataclass

import torch

from gpu_worker.graders.result import Mismatch

POISON_KEY, POISON_VALUE = 30.0, 1000.0  # finite, so masking them out gives exact zeros; reading them shows
TOLERANCE = {torch.float32: (1e-4, 1e-3), torch.float16: (2e-2, 2e-2), torch.bfloat16: (5e-2, 5e-2)}  # atol, rtol


@dataclass(frozen=True)
class PagedCase:
    name: str
    num_seqs: int
    num_kv_heads: int
    group: int  # query heads per KV head: 1 (MHA) up to all heads on one KV head (MQA)
    head_dim: int
    block_size: int
    context_lens: tuple
    padding: str = "poison"  # or "out-of-range": entries past the last block are invalid indices
    scale: float | None = None  # None: head_dim ** -0.5
    shared_prefix_blocks: int = 0  # whole blocks every sequence's table starts with (a shared prompt prefix)
    equal_scores: float = 0.0  # > 0: every key of a sequence the same, so every score is this (large) number
    padding_columns: int = 2  # table columns past the longest sequence's last block

    def __post_init__(self):
        if len(self.context_lens) != self.num_seqs or min(self.context_lens) < 1:
            raise ValueError(f"PagedCase.context_lens must hold {self.num_seqs} lengths >= 1, got {self.context_lens}")
        if self.shared_prefix_blocks * self.block_size > min(self.context_lens):
            raise ValueError(
                f"PagedCase: a shared prefix of {self.shared_prefix_blocks} blocks is longer than a context"
            )


def build(case: PagedCase, seed: int, dtype=torch.float32, device="cpu") -> tuple:
    """(query, key_cache, value_cache, block_tables, context_lens, scale) for `case`."""
    generator = torch.Generator().manual_seed(seed)
    rng = random.Random(seed)
    heads = case.num_kv_heads * case.group
    shared_count = case.shared_prefix_blocks
    blocks_per_seq = [-(-length // case.block_size) for length in case.context_lens]
    own_counts = [count - shared_count for count in blocks_per_seq]
    max_blocks = max(blocks_per_seq) + case.padding_columns
    num_blocks = shared_count + sum(own_counts) + 3  # + spare blocks full of poison
    physical = list(range(num_blocks))
    rng.shuffle(physical)
    shape = (num_blocks, case.block_size, case.num_kv_heads, case.head_dim)
    key_cache = torch.full(shape, POISON_KEY)  # [num_blocks, block_size, KVH, D]
    value_cache = torch.full(shape, POISON_VALUE)
    tables = torch.empty(case.num_seqs, max_blocks, dtype=torch.int32)  # [N, max_blocks]
    shared, physical = physical[:shared_count], physical[shared_count:]
    for block in shared:  # full blocks, read by every sequence
        key_cache[block] = torch.randn(case.block_size, case.num_kv_heads, case.head_dim, generator=generator)
        value_cache[block] = torch.randn(case.block_size, case.num_kv_heads, case.head_dim, generator=generator)
    spare = physical[sum(own_counts) :]
    for seq, (length, count) in enumerate(zip(case.context_lens, own_counts)):
        owned, physical = physical[:count], physical[count:]
        for logical, block in enumerate(owned, start=shared_count):
            used = min(case.block_size, length - logical * case.block_size)
            key_cache[block, :used] = torch.randn(used, case.num_kv_heads, case.head_dim, generator=generator)
            value_cache[block, :used] = torch.randn(used, case.num_kv_heads, case.head_dim, generator=generator)
            if case.equal_scores:
                key_cache[block, :used] = 1.0
        owned = shared + owned
        if case.padding == "poison":
            garbage = [rng.choice(spare) for _ in range(max_blocks - len(owned))]
        else:
            invalid = (num_blocks, 2**31 - 1, -(2**31), -1)  # the first always fails an index check
            garbage = [invalid[i % 4] for i in range(max_blocks - len(owned))]
        tables[seq] = torch.tensor(owned + garbage, dtype=torch.int32)
    query = torch.randn(case.num_seqs, heads, case.head_dim, generator=generator)  # [N, H, D]
    scale = case.scale if case.scale is not None else case.head_dim**-0.5
    if case.equal_scores:  # keys all ones, queries all q: every score is q * head_dim * scale
        query.fill_(case.equal_scores / (case.head_dim * scale))
    lens = torch.tensor(case.context_lens, dtype=torch.int32)  # [N]
    to = dict(device=device)
    return (
        query.to(dtype=dtype, **to),
        key_cache.to(dtype=dtype, **to),
        value_cache.to(dtype=dtype, **to),
        tables.to(**to),
        lens.to(**to),
        scale,
    )


def fresh_inputs(case: PagedCase, generator: torch.Generator, dtype=torch.float32) -> tuple:
    """A timed call's inputs, made quickly on the generator's device: every value new (spare blocks too), blocks
    shuffled, the padding pointing at spare blocks. Poison is the tests' job; here only freshness matters."""
    on = dict(generator=generator, device=generator.device)
    blocks_per_seq = [-(-length // case.block_size) for length in case.context_lens]
    max_blocks = max(blocks_per_seq) + 2
    num_blocks = sum(blocks_per_seq) + 3
    shape = (num_blocks, case.block_size, case.num_kv_heads, case.head_dim)
    key_cache = torch.randn(shape, **on).to(dtype)  # [num_blocks, block_size, KVH, D]
    value_cache = torch.randn(shape, **on).to(dtype)
    physical = torch.randperm(num_blocks, **on)
    spare = physical[sum(blocks_per_seq) :]
    tables = spare[torch.randint(len(spare), (case.num_seqs, max_blocks), **on)]  # [N, max_blocks]
    start = 0
    for seq, count in enumerate(blocks_per_seq):
        tables[seq, :count] = physical[start : start + count]
        start += count
    query = torch.randn(case.num_seqs, case.num_kv_heads * case.group, case.head_dim, **on)  # [N, H, D]
    lens = torch.tensor(case.context_lens, dtype=torch.int32, device=generator.device)
    return query.to(dtype), key_cache, value_cache, tables.to(torch.int32), lens, case.head_dim**-0.5


def public_cases() -> list[PagedCase]:
    return [
        PagedCase("mha-one-block", 2, 4, 1, 32, 16, (5, 16)),
        PagedCase("gqa4-shuffled-tables", 3, 2, 4, 32, 8, (9, 24, 17)),
        PagedCase("single-token-contexts", 3, 2, 8, 64, 16, (1, 1, 2)),
        PagedCase("out-of-range-padding", 2, 1, 4, 32, 32, (33, 7), padding="out-of-range"),
    ]


def max_error(got: torch.Tensor, expected: torch.Tensor) -> tuple[float, tuple]:
    diff = (got.float() - expected.float()).abs()
    index = tuple(int(i) for i in torch.unravel_index(diff.argmax(), diff.shape))
    return float(diff.max()), index


def compare(got, expected: torch.Tensor, atol: float, rtol: float) -> tuple[bool, str]:
    """Is `got` the attention output `expected` (shape, dtype, values within tolerance)?"""
    if not isinstance(got, torch.Tensor):
        return False, f"returned {type(got).__name__}; the contract asks for a torch.Tensor"
    if tuple(got.shape) != tuple(expected.shape):
        return False, Mismatch(
            f"returned shape {tuple(got.shape)}, expected {tuple(expected.shape)} [num_seqs, num_heads, head_dim]",
            expected=f"shape {tuple(expected.shape)}",
            got=f"shape {tuple(got.shape)}",
        )
    if got.dtype != expected.dtype:
        return False, f"returned dtype {got.dtype}; the contract asks for the query's dtype {expected.dtype}"
    if not torch.isfinite(got.float()).all():
        return False, "the output holds NaN or inf (masked-out positions or padding entries were read?)"
    error, (seq, head, _) = max_error(got, expected)
    if not torch.allclose(got.float(), expected.float(), atol=atol, rtol=rtol):
        return False, f"max abs error {error:.3g} (sequence {seq}, head {head}); tolerance atol={atol} rtol={rtol}"
    return True, ""
