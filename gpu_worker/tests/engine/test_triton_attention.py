"""The Triton paged decode kernel against torch paged and dense attention: GQA 1/4/8, block sizes 8/16/32,
shuffled tables, lengths off block boundaries. On CPU it runs in a subprocess under TRITON_INTERPRET=1,
because Triton reads that setting once at import and other tests in this process must not inherit it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gpu_worker.engine.attention import paged_attention_decode

from .attention_cases import make_case

pytest.importorskip("triton")
REPO_ROOT = Path(__file__).parents[3]


def test_triton_equals_torch_equals_dense_in_interpreter():
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "gpu_worker.tests.engine.triton_cases"],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 cases passed" in result.stdout


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("num_splits", [None, 1, 3])
def test_triton_on_cuda(dtype, num_splits):
    from gpu_worker.engine.triton_attention import paged_attention_decode_triton

    case = [t.cuda() for t in make_case(32, 8, 16, [1, 100, 257, 4000], head_dim=128, dtype=dtype)]
    tolerance = {torch.float16: 2e-3, torch.bfloat16: 2e-2, torch.float32: 1e-4}[dtype]
    torch.testing.assert_close(
        paged_attention_decode_triton(*case, 0.125, num_splits=num_splits),
        paged_attention_decode(*case, 0.125),
        atol=tolerance,
        rtol=tolerance,
    )


@pytest.mark.gpu
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_triton_launches_on_the_tensors_device_not_the_current_one():
    from gpu_worker.engine.triton_attention import paged_attention_decode_triton

    case = [t.to("cuda:1") for t in make_case(8, 2, 16, [5, 300], head_dim=64, dtype=torch.float16)]
    with torch.cuda.device(0):
        out = paged_attention_decode_triton(*case, 0.125)
    assert out.device == torch.device("cuda:1")
    torch.testing.assert_close(out, paged_attention_decode(*case, 0.125), atol=2e-3, rtol=2e-3)
