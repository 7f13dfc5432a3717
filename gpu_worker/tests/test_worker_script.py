"""scripts/test_worker.sh, CI's second Python leg: with a Python that lacks torch and no torch wheel for it
on disk, and no download allowed, it says SKIP and why, exits 0, and installs nothing."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_torch_for_that_python_it_skips_saying_why_and_installs_nothing(tmp_path):
    python = tmp_path / "python3"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')  # no site-packages: no torch, no pytest
    python.chmod(0o755)
    pin = next(
        line[7:] for line in (ROOT / "requirements-worker.lock").read_text().splitlines() if line[:7] == "torch=="
    )
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    venv = tmp_path / "venv"  # not var/venv-<version>: CI's 3.12 leg runs this test from that very venv
    done = subprocess.run(
        ["/bin/bash", "scripts/test_worker.sh"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHON": str(python),
            "PIP_FIND_LINKS": str(tmp_path / "no-wheels"),
            "WORKER_VENV": str(venv),
        },
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"SKIP worker tests on Python {version}: no torch {pin} for it on this disk")
    assert "WORKER_TORCH_DOWNLOAD=1" in done.stdout
    assert not venv.exists()
