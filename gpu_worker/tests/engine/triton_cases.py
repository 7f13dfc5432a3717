"""Run as a script with TRITON_INTERPRET=1 (Triton reads it at first import): Triton vs torch vs dense.

Covers GQA groups of 1 to 8 query heads per KV head, ragged context lengths, block sizes 8/16/32, and split-K
at its edges: a context ending exactly on a split boundary, one token past it, splits left empty."""

import sys

import torch

from gpu_worker.engine.attention import paged_attention_decode
from gpu_worker.engine.triton_attention import choose_splits, paged_attention_decode_triton
from gpu_worker.tests.engine.attention_cases import dense_reference, make_case

# (heads, kv_heads, block_size, context lens, head_dim, dtype, num_splits)
CASES = [
    (4, 4, 8, [1, 11, 17], 16, torch.float32, None),
    (8, 2, 16, [1, 19, 33], 16, torch.float32, None),
    (8, 1, 32, [40, 3], 16, torch.float32, 1),
    (8, 2, 16, [32, 33, 31, 64], 16, torch.float32, 2),  # 64 tokens of table, 2 splits of 32: on and off the edge
    (6, 2, 8, [48, 17, 1], 16, torch.float32, 3),  # group of 3 (padded), 3 splits of 16, the short ones empty
    (4, 2, 16, [21, 5], 24, torch.float16, 2),  # fp16 and a head_dim that is not a power of two
]


def main() -> int:
    failures = []
    for heads, kv_heads, block_size, lens, head_dim, dtype, splits in CASES:
        case = make_case(heads, kv_heads, block_size, lens, head_dim=head_dim, dtype=dtype)
        tolerance = {"atol": 2e-3, "rtol": 2e-3} if dtype == torch.float16 else {"atol": 1e-5, "rtol": 1e-5}
        label = f"heads={heads} kv_heads={kv_heads} block_size={block_size} lens={lens} {dtype} splits={splits}"
        try:
            expected = paged_attention_decode(*case, 0.25)
            torch.testing.assert_close(expected, dense_reference(*case, 0.25), **tolerance)
            out = paged_attention_decode_triton(*case, 0.25, num_splits=splits, block_n=16)
            assert out.dtype == dtype, f"dtype {out.dtype}"
            torch.testing.assert_close(out, expected, **tolerance)
        except Exception as exc:
            failures.append(f"{label}: {type(exc).__name__}: {exc}")
    assert choose_splits(64, 8, 4096, 64, 132) == 1  # batch 64 x 8 KV heads already fills an H200
    assert choose_splits(1, 8, 4096, 64, 132) == 33  # one long sequence spreads over the SMs
    print("\n".join(failures) or f"{len(CASES)} cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
