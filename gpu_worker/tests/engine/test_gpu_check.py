"""`make gpu-check` on whatever host runs the tests: one line per step, a JSON and HTML report, and on a host
without usable CUDA every GPU step skipped with its reason rather than passed."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[3]


def test_gpu_check_reports_every_step(tmp_path):
    done = subprocess.run(
        [sys.executable, "scripts/gpu_check.py", "--out", str(tmp_path), "--budget", "200"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )
    report = json.loads((tmp_path / "report.json").read_text())
    steps = {step["step"]: step for step in report["steps"]}
    lines = [line for line in done.stdout.splitlines() if line[:4] in ("PASS", "FAIL", "SKIP")]
    assert len(lines) == len(steps) + 1  # one per step and the summary
    assert {
        "preflight: driver",
        "python + packages",
        "gpu-marked tests",
        "Triton bandwidth vs SDPA",
        "collectives on NCCL",
    } <= set(steps)
    assert sum(name.startswith("lab ") for name in steps) == 4
    assert "<table>" in (tmp_path / "report.html").read_text()
    if not torch.cuda.is_available():
        gpu_steps = [s for name, s in steps.items() if name.startswith(("gpu-marked", "lab ", "Triton", "engine"))]
        assert gpu_steps and all(s["status"] == "SKIP" and s["detail"] for s in gpu_steps)
        assert done.returncode == (1 if any(s["status"] == "FAIL" for s in steps.values()) else 0)


def test_gpu_check_uses_the_given_python_and_without_bubblewrap_says_so_on_every_lab_line(tmp_path):
    """An image's own Python is used as it is (nothing installed); no bwrap on PATH: the sandbox step
    FAILs with the reason and each lab step still runs, marked UNSANDBOXED."""
    done = subprocess.run(
        [sys.executable, "scripts/gpu_check.py", "--out", str(tmp_path), "--budget", "300", "--labs-on-cpu"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
        env={"PATH": str(tmp_path / "empty-bin"), "GPU_CHECK_PYTHON": sys.executable, "HOME": str(tmp_path)},
    )
    steps = {s["step"]: s for s in json.loads((tmp_path / "report.json").read_text())["steps"]}
    assert steps["preflight: bubblewrap"]["status"] == "FAIL"
    assert "bwrap not found" in steps["preflight: bubblewrap"]["detail"]
    python_step = steps["python + packages"]
    assert python_step["status"] == "PASS", python_step["detail"]
    assert (
        "installed nothing" in python_step["detail"]
        and f"torch {torch.__version__.split('+')[0]}" in python_step["detail"]
    )
    labs = [s for name, s in steps.items() if name.startswith("lab ")]
    assert len(labs) == 4 and all(s["detail"].startswith("UNSANDBOXED") for s in labs), labs
    assert done.returncode == 1


def _fake_python(bin_dir: Path, *flags: str, target: str = sys.executable) -> tuple[Path, Path]:
    """A `python3` on an otherwise empty PATH that logs each call and runs `target` (this interpreter unless
    told) with `flags`, with CUDA hidden from torch; and the log of its calls."""
    bin_dir.mkdir()
    log = bin_dir / "calls.log"
    python = bin_dir / "python3"
    python.write_text(f'#!/bin/sh\necho "$*" >> {log}\nCUDA_VISIBLE_DEVICES= exec {target} {" ".join(flags)} "$@"\n')
    python.chmod(0o755)
    (bin_dir / "dirname").symlink_to(shutil.which("dirname"))  # scripts/gpu_check.sh's one tool
    return python, log


def _make_gpu_check(tmp_path: Path, python: Path, given: bool = True) -> tuple[subprocess.CompletedProcess, dict]:
    """`PYTHON=<python> make gpu-check` as the Makefile runs it (bash scripts/gpu_check.sh), with only
    python's folder on PATH; `given=False`: no PYTHON, so the script finds one."""
    out = tmp_path / "report"
    done = subprocess.run(
        ["/bin/bash", "scripts/gpu_check.sh", "--out", str(out), "--budget", "120"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={"PATH": str(python.parent), "HOME": str(tmp_path), **({"PYTHON": str(python)} if given else {})},
    )
    steps = {s["step"]: s for s in json.loads((out / "report.json").read_text())["steps"]}
    return done, steps


def _status_lines(stdout: str) -> dict:
    return {line[5:43].strip(): line for line in stdout.splitlines() if line[:4] in ("PASS", "FAIL", "SKIP")}


def test_make_gpu_check_with_a_python_whose_torch_sees_no_cuda_skips_the_gpu_steps_and_installs_nothing(tmp_path):
    python, calls = _fake_python(tmp_path / "bin")
    done, steps = _make_gpu_check(tmp_path, python)
    lines = _status_lines(done.stdout)
    packages = lines["python + packages"]
    assert packages.startswith("PASS") and "installed nothing" in packages, done.stdout + done.stderr
    assert (
        f"torch {torch.__version__.split('+')[0]}" in packages
        and f"{python} (given)" in steps["python + packages"]["detail"]
    )
    assert lines["preflight: bubblewrap"].startswith("FAIL") and "bwrap not found" in lines["preflight: bubblewrap"]
    assert steps["CUDA usable (device_status)"]["status"] != "PASS"
    gpu_steps = [name for name in steps if name.startswith(("gpu-marked", "lab ", "Triton", "engine", "collectives"))]
    assert len(gpu_steps) == 9
    assert all(lines[name].startswith("SKIP") and "no usable CUDA" in lines[name] for name in gpu_steps), done.stdout
    assert not any(word in call for call in calls.read_text().splitlines() for word in ("pip", "venv", "bootstrap"))
    assert not (tmp_path / "report" / "install.log").exists()
    assert done.returncode == 1  # the missing sandbox (and compiler, on this PATH) is a FAIL


def test_make_gpu_check_with_a_python_lacking_torch_fails_that_step_and_installs_nothing(tmp_path):
    python, calls = _fake_python(tmp_path / "bin", "-S")  # no site-packages: no torch, numpy or PyYAML
    done, steps = _make_gpu_check(tmp_path, python)
    packages = steps["python + packages"]
    assert packages["status"] == "FAIL"
    assert "lacks torch, numpy and PyYAML" in packages["detail"] and "installed nothing" in packages["detail"]
    later = [name for name in steps if name.startswith(("CUDA", "gpu-marked", "lab ", "Triton", "engine"))]
    assert len(later) == 9 and all(steps[name]["status"] == "SKIP" for name in later), steps
    assert all("no Python with torch" in steps[name]["detail"] for name in later)
    assert not any(word in call for call in calls.read_text().splitlines() for word in ("pip", "venv", "bootstrap"))
    assert done.returncode == 1


def test_make_gpu_check_prefers_a_python3_whose_torch_sees_cuda_and_never_installs_beside_it(tmp_path):
    """No PYTHON given: a python3 on PATH whose torch reports CUDA (an image's own, here a stand-in torch
    lacking numpy and PyYAML beside it) wins over this checkout's CPU-only .venv; the step then FAILs
    saying what to install, and installs nothing (no second torch beside the image's)."""
    python, calls = _image_python(tmp_path, cuda_build="13.0")
    done, steps = _make_gpu_check(tmp_path, python, given=False)
    packages = steps["python + packages"]
    assert packages["status"] == "FAIL", done.stdout + done.stderr
    assert packages["detail"].startswith(f"{python} (found on PATH: its torch sees CUDA) lacks numpy and PyYAML")
    assert "requirements-worker-base.txt" in packages["detail"] and "installed nothing" in packages["detail"]
    assert not any(word in call for call in calls.read_text().splitlines() for word in ("pip", "venv", "bootstrap"))
    assert not (tmp_path / "report" / "install.log").exists()


def _image_python(tmp_path: Path, cuda_build: str) -> tuple[Path, Path]:
    """A GPU image's own Python, as _fake_python gives it: a venv with nothing but a stand-in torch 2.11
    built for `cuda_build` whose CUDA is available (numpy and PyYAML lacking)."""
    image = tmp_path / "image"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(image)], check=True, timeout=120)
    site = next(image.glob("lib/python3*/site-packages"))
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text(
        f"class cuda:\n    is_available = staticmethod(lambda: True)\n\n\nclass version:\n    cuda = {cuda_build!r}\n"
    )
    dist = site / f"torch-2.11.0+cu{cuda_build.replace('.', '')}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {dist.name[6:-10]}\n")
    return _fake_python(tmp_path / "bin", target=str(image / "bin" / "python"))


@pytest.mark.parametrize(("cuda_build", "status"), [("13.0", "FAIL"), ("12.6", "PASS")])
def test_the_driver_step_asks_for_the_driver_the_chosen_torchs_cuda_build_needs(tmp_path, cuda_build, status):
    """nvidia-smi reports driver 550: too old for a CUDA 13 torch (580+), enough for a CUDA 12 one (525+)."""
    python, _ = _image_python(tmp_path, cuda_build)
    smi = python.parent / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA H200, 550.54.15, 143771 MiB'\n")
    smi.chmod(0o755)
    done, steps = _make_gpu_check(tmp_path, python, given=False)
    driver = steps["preflight: driver"]
    assert driver["status"] == status, done.stdout
    if status == "FAIL":
        assert driver["detail"].startswith("driver 550 is older than 580, which torch 2.11.0+cu130 (CUDA 13.0) needs")
    else:
        assert driver["detail"] == "NVIDIA H200, 550.54.15, 143771 MiB; enough for torch 2.11.0+cu126 (CUDA 12.6)"
