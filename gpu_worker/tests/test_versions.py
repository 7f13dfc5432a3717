"""The supported torch/triton range (gpu_worker/versions.py), read without importing torch."""

from pathlib import Path

from gpu_worker import versions


def _v(torch, triton=None, wanted=None):
    return {"torch": torch, "triton": triton, "triton_wanted": wanted, "numpy": "2.4.6", "PyYAML": "6.0.4"}


def test_this_hosts_torch_is_inside_the_supported_range():
    """Whatever torch this host has (the lock's here and in CI, an image's own on a GPU host)."""
    assert versions.problems() == [], versions.summary()


def test_an_images_own_cuda_torch_inside_the_range_is_accepted():
    assert versions.problems(_v("2.11.0+cu130", "3.6.0", "3.6.0")) == []
    assert versions.problems(_v("2.9.1", "3.5.1", "3.5.1")) == []


def test_outside_the_range_or_a_mismatched_triton_is_named():
    assert versions.problems(_v("2.8.0")) == ["torch 2.8.0 is outside the supported 2.9–2.13"]
    assert versions.problems(_v("2.14.1", "3.7.1", "3.8.0")) == [
        "torch 2.14.1 is outside the supported 2.9–2.13",
        "torch 2.14.1 was built for triton 3.8.0, but 3.7.1 is installed",
    ]
    assert versions.problems(_v("2.12.0", None, "3.7.0")) == ["torch 2.12.0 needs triton 3.7.0, which is not installed"]
    assert versions.problems(_v(None)) == ["torch is not installed"]


def test_the_tested_pins_lie_inside_the_range():
    pins = dict(
        line.split("==")
        for line in (Path(__file__).resolve().parents[2] / "requirements-worker.txt").read_text().splitlines()
        if "==" in line
    )
    assert versions.problems(_v(pins["torch"], pins["triton"])) == []


def test_a_worker_starting_with_an_unsupported_torch_says_so_in_its_log(tmp_path):
    """Celery's worker_ready, as a starting worker sends it, with torch 2.8.0's metadata first on the path."""
    import subprocess
    import sys

    dist = tmp_path / "torch-2.8.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n")
    code = (
        "import logging; logging.basicConfig(format='%(levelname)s %(message)s');"
        "from celery.signals import worker_ready; import gpu_worker.heartbeat; worker_ready.send(sender=None)"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tmp_path}:{root}", "CELERY_BROKER_URL": "memory://"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        "WARNING unsupported worker dependency: torch 2.8.0 is outside the supported 2.9–2.13"
        " (supported: gpu_worker/versions.py; README, A GPU host)" in done.stderr
    ), done.stderr[-2000:]
