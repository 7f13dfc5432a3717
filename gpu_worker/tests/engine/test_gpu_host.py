"""What the GPU path does on a host where CUDA is missing or broken: it says so, and it still grades."""

import logging

import pytest
import torch

from gpu_worker.engine.attention import paged_attention_decode
from gpu_worker.engine.decode_kernel import TritonDecodeWithFallback
from gpu_worker.engine.device import device_status
from gpu_worker.engine.engine import cuda_kv_blocks

from .attention_cases import make_case

GIB = 2**30


def _fake_root(tmp_path, nodes):
    dev, proc = tmp_path / "dev", tmp_path / "proc"
    dev.mkdir()
    for name in nodes:
        (dev / name).touch()
    (proc / "driver/nvidia").mkdir(parents=True)
    (proc / "driver/nvidia/version").write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue\n")
    return str(dev), str(proc)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-usable-CUDA report")
def test_gpu_host_without_usable_cuda_says_why(tmp_path):
    dev, proc = _fake_root(tmp_path, ["nvidia0", "nvidiactl"])
    status = device_status(dev, proc)
    assert status["gpu_host"] is True and status["cuda_usable"] is False and status["device"] == "cpu"
    assert "550.54.15" in status["reason"] and "no usable CUDA" in status["reason"]
    assert "nvidia-uvm is missing" in status["reason"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-host report")
def test_cpu_host_reports_cpu_without_alarm(tmp_path):
    dev, proc = _fake_root(tmp_path, [])
    assert device_status(dev, proc) == {
        "gpu_host": False,
        "cuda_usable": False,
        "device": "cpu",
        "reason": "no NVIDIA device nodes: a CPU host, grading on CPU",
    }


@pytest.mark.gpu
def test_gpu_host_with_cuda_is_usable():
    status = device_status()
    assert status["gpu_host"] and status["cuda_usable"] and status["device"].startswith("cuda:0"), status


def test_triton_failure_falls_back_to_torch_and_logs_once(caplog):
    # Without a GPU (and without TRITON_INTERPRET) Triton cannot launch at all: the same path as a host
    # whose image lacks a compiler or whose driver Triton does not support.
    if torch.cuda.is_available():
        pytest.skip("Triton launches here")
    decode = TritonDecodeWithFallback()
    case = make_case(8, 2, 16, [5, 40])
    with caplog.at_level(logging.WARNING, logger="gpu_worker.engine.decode_kernel"):
        first, second = decode(*case, 0.25), decode(*case, 0.25)
    torch.testing.assert_close(first, paged_attention_decode(*case, 0.25))
    torch.testing.assert_close(second, first)
    warnings = [r for r in caplog.records if "using the torch kernel" in r.getMessage()]
    assert len(warnings) == 1 and decode.failure


def test_kv_pool_sizes_from_free_memory_not_total():
    # An H200 that another process already fills to 100 of 141 GiB: only the free 41 GiB are ours to take.
    per_token, block = 2 * 32 * 8 * 128 * 2, 16  # an 8B-class model in bf16
    kw = dict(
        total_bytes=141 * GIB,
        used_bytes=16 * GIB,
        gpu_memory_utilization=0.9,
        activation_bytes=2 * GIB,
        block_size=block,
        bytes_per_token=per_token,
        max_useful_tokens=10**9,
    )
    blocks = cuda_kv_blocks(free_bytes=41 * GIB, **kw)
    assert blocks == (39 * GIB) // (block * per_token)
    # an idle device: the utilization cap, less what this process already holds, binds instead
    assert cuda_kv_blocks(free_bytes=125 * GIB, **kw) == (int(141 * GIB * 0.9) - 16 * GIB - 2 * GIB) // (
        block * per_token
    )
    assert cuda_kv_blocks(free_bytes=GIB, **kw) == 0


def test_kv_pool_never_exceeds_what_the_engine_can_use():
    # the tiny model on an idle H200 used to get 8M blocks; max_num_seqs x max_model_len bounds it
    blocks = cuda_kv_blocks(
        free_bytes=140 * GIB,
        total_bytes=141 * GIB,
        used_bytes=0,
        gpu_memory_utilization=0.9,
        activation_bytes=0,
        block_size=16,
        bytes_per_token=1024,
        max_useful_tokens=64 * 2048,
    )
    assert blocks == 64 * 2048 // 16
