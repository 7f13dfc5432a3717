"""requirements-worker.txt resolves for a GPU host, where PyPI's Linux torch wheel is the CUDA build.

CI and laptops install the `+cpu` wheel, which has no triton dependency, so a wrong triton pin only
shows on a GPU host. This asks pip to resolve the file for the Linux x86_64 CUDA wheel without
installing anything (pip still fetches the wheels it reads metadata from, into a temporary folder).
"""

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REQUIREMENTS = Path(__file__).resolve().parents[3] / "requirements-worker.txt"
# pip matches --platform tags exactly, so name every manylinux glibc a CUDA wheel dependency may carry.
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(17, 29)] + ["manylinux2014_x86_64"]


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[name.split("[")[0].strip().lower()] = version.strip()
    return pins


@pytest.mark.slow
def test_worker_pins_resolve_for_the_cuda_torch_wheel(tmp_path):
    if not _pypi_reachable():
        pytest.skip("pypi.org is unreachable from this host: cannot dry-run the CUDA wheel resolve")
    report = tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "pip",
        "--isolated",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--quiet",
        "--report",
        str(report),
        "--only-binary=:all:",
        "--python-version",
        "3.11",
        "--implementation",
        "cp",
        "--target",
        str(tmp_path / "target"),
        "--index-url",
        "https://pypi.org/simple",
        *[arg for platform in PLATFORMS for arg in ("--platform", platform)],
        "-r",
        str(REQUIREMENTS),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"the worker pins do not resolve for the CUDA wheel:\n{done.stderr[-3000:]}"
    chosen = {
        item["metadata"]["name"].lower(): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    pins = _pins(REQUIREMENTS)
    assert chosen["torch"] == pins["torch"] and chosen["triton"] == pins["triton"]
    assert any(name.startswith("nvidia-") or name.startswith("cuda-") for name in chosen), (
        "resolved the CPU wheel, not the CUDA one"
    )
