"""What this host offers the worker: is it a GPU host, can torch use CUDA there, and if not, why.

A GPU host whose CUDA is unusable (CPU torch wheel, a driver older than the wheel's CUDA, a missing
/dev/nvidia-uvm) would otherwise grade on CPU without a word; the heartbeat reports this dict instead.
"""

import functools
import glob
import os
import warnings

import torch


def _driver_version(proc_root: str) -> str | None:
    try:
        with open(os.path.join(proc_root, "driver/nvidia/version")) as handle:
            first = handle.readline()
    except OSError:
        return None
    words = [word for word in first.split() if word[:1].isdigit() and "." in word]
    return words[0] if words else first.strip()


def _probe_cuda() -> tuple[bool, str, str]:
    """(usable, device, reason): one real allocation and kernel, not just is_available()."""
    if torch.version.cuda is None:
        return False, "cpu", f"torch {torch.__version__} is a CPU build; install the CUDA wheel (see README, GPU host)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    if not available:
        said = "; ".join(str(w.message).strip() for w in caught) or "torch.cuda.is_available() is False"
        return False, "cpu", f"torch built for CUDA {torch.version.cuda} cannot use this GPU: {said}"
    try:
        value = (torch.ones(4, device="cuda") * 2).sum().item()
    except Exception as exc:
        return False, "cpu", f"CUDA initialised but a first kernel failed: {exc}"
    if value != 8:
        return False, "cpu", f"CUDA returned a wrong result for a first kernel ({value} != 8)"
    return True, f"cuda:0 ({torch.cuda.get_device_name(0)})", ""


@functools.lru_cache(maxsize=4)
def device_status(dev_root: str = "/dev", proc_root: str = "/proc") -> dict:
    """{"gpu_host", "cuda_usable", "device", "reason"}; reason is empty when all is well. Cached per process."""
    nodes = sorted(os.path.basename(p) for p in glob.glob(os.path.join(dev_root, "nvidia*")))
    gpu_host = any(name[len("nvidia") :].isdigit() for name in nodes)
    usable, device, reason = _probe_cuda()
    if gpu_host and not usable:
        driver = _driver_version(proc_root)
        reason = f"GPU host (driver {driver or 'unknown'}, {', '.join(nodes)}) but no usable CUDA: {reason}"
        if "nvidia-uvm" not in nodes:
            reason += "; /dev/nvidia-uvm is missing (run `nvidia-modprobe -u -c0` once on the host)"
    elif not gpu_host and not usable:
        reason = "no NVIDIA device nodes: a CPU host, grading on CPU"
    return {"gpu_host": gpu_host, "cuda_usable": usable, "device": device, "reason": reason}
