"""`make gpu-check` on whatever host runs the tests: one line per step, a JSON and HTML report, and on a host
without usable CUDA every GPU step skipped with its reason rather than passed."""

import json
import subprocess
import sys
from pathlib import Path

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
    assert "installed nothing" in python_step["detail"] and f"torch {torch.__version__}" in python_step["detail"]
    labs = [s for name, s in steps.items() if name.startswith("lab ")]
    assert len(labs) == 4 and all(s["detail"].startswith("UNSANDBOXED") for s in labs), labs
    assert done.returncode == 1
