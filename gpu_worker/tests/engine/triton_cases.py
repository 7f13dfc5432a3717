"""Run as a script with TRITON_INTERPRET=1 (Triton reads it at first import): Triton vs torch vs dense."""
import itertools
import sys

import torch

from gpu_worker.engine.attention import paged_attention_decode
from gpu_worker.engine.triton_attention import paged_attention_decode_triton
from gpu_worker.tests.engine.attention_cases import dense_reference, make_case


def main() -> int:
    failures = []
    cases = [(h, kv, bs, [1, bs + 3, 2 * bs + 1], 16, torch.float32)
             for (h, kv), bs in itertools.product([(4, 4), (8, 2), (8, 1)], [8, 16, 32])]
    cases.append((4, 2, 16, [21, 5], 24, torch.float16))  # fp16 and a head_dim that is not a power of two
    for heads, kv_heads, block_size, lens, head_dim, dtype in cases:
        case = make_case(heads, kv_heads, block_size, lens, head_dim=head_dim, dtype=dtype)
        tolerance = {"atol": 2e-3, "rtol": 2e-3} if dtype == torch.float16 else {}
        try:
            expected = paged_attention_decode(*case, 0.25)
            torch.testing.assert_close(expected, dense_reference(*case, 0.25), **tolerance)
            out = paged_attention_decode_triton(*case, 0.25)
            assert out.dtype == dtype, f"dtype {out.dtype}"
            torch.testing.assert_close(out, expected, **tolerance)
        except AssertionError as exc:
            failures.append(f"heads={heads} kv_heads={kv_heads} block_size={block_size} {dtype}: {exc}")
    print("\n".join(failures) or f"{len(cases)} cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
