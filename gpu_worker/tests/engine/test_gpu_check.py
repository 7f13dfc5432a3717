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
        "venv + install",
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
