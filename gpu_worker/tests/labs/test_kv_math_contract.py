"""The kv-sizing arithmetic, checked on hand-computed figures, and importable without torch."""

import subprocess
import sys

from gpu_worker.contract.kv import kv_bytes_per_token, max_concurrent_seqs, num_gpu_blocks

LLAMA2_7B = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32}


def test_kv_bytes_per_token_mha_gqa_and_head_dim():
    assert kv_bytes_per_token(LLAMA2_7B, 2) == 2 * 32 * 32 * 128 * 2 == 524288
    llama3_8b = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8}
    assert kv_bytes_per_token(llama3_8b, 2) == 131072
    assert kv_bytes_per_token({**llama3_8b, "head_dim": 64}, 1) == 2 * 32 * 8 * 64


def test_num_gpu_blocks_and_zero_when_negative():
    gib = 2**30
    # int(80 GiB * 0.9) - 14 GiB weights - 2 GiB activations, over 16 tokens x 512 KiB
    assert num_gpu_blocks(80 * gib, 0.9, 14 * gib, 2 * gib, 16, 524288) == (int(80 * gib * 0.9) - 16 * gib) // (
        16 * 524288
    )
    assert num_gpu_blocks(10 * gib, 0.5, 6 * gib, 0, 16, 524288) == 0


def test_max_concurrent_seqs_rounds_blocks_up():
    assert max_concurrent_seqs(100, 16, 33) == 100 // 3
    assert max_concurrent_seqs(100, 16, 32) == 50


def test_sizing_imports_without_torch():
    code = "import sys, gpu_worker.contract.kv; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=__file__.rsplit("/gpu_worker/", 1)[0])
