"""Under `make run` a grading worker runs under its own memory limit: a bug that inflates what a run sent
ends that worker (the supervisor starts it again), not the host."""

import os
import sys
import time
from pathlib import Path

import pytest

from tests.test_supervise import _supervise

GIB = 1 << 30


def _soft_data_limit(pid: int) -> int | str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max data size"):
            soft = line.split()[3]
            return int(soft) if soft.isdigit() else soft
    raise AssertionError(f"no data size line in /proc/{pid}/limits")


@pytest.mark.parametrize("setting, expected", [(None, 16 * GIB), ("3g", 3 * GIB), ("2048m", 2 * GIB)])
def test_a_grading_worker_started_as_make_run_starts_it_has_its_memory_limit(tmp_path, monkeypatch, setting, expected):
    supervise = _supervise()
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    if setting is None:
        monkeypatch.delenv("GPU_WORKER_MEMORY_LIMIT", raising=False)  # the default, as docker-compose.yml's
    else:
        monkeypatch.setenv("GPU_WORKER_MEMORY_LIMIT", setting)
    nobody = f"redis://127.0.0.1:{supervise.free_port(17900)}/0"  # no broker: the worker starts and keeps retrying
    env = {**os.environ, "CELERY_BROKER_URL": nobody, "CELERY_RESULT_BACKEND": nobody}
    worker = supervise.grading_worker(1, env, "warning", supervise.worker_memory_limit())
    worker.start()
    try:
        pid = worker.process.pid
        deadline = time.monotonic() + 60
        while b"gpu_worker.celery_app" not in Path(f"/proc/{pid}/cmdline").read_bytes():  # until celery runs
            assert worker.process.poll() is None and time.monotonic() < deadline, (
                tmp_path / "gpu-worker-1.log"
            ).read_text()
            time.sleep(0.1)
        assert _soft_data_limit(pid) == expected
        log = tmp_path / "gpu-worker-1.log"
        while "[queues]" not in log.read_text():  # its app loaded under that limit: it is a working worker
            assert worker.process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        assert _soft_data_limit(os.getpid()) != expected  # the worker's own, not one the test runs under
    finally:
        supervise.stop([worker], grace=5)


def test_past_its_limit_an_allocation_fails_in_that_process_alone(tmp_path, monkeypatch):
    supervise = _supervise()
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    inflate = (
        "try:\n    blob = bytearray(3 << 30)\n    print('allocated', len(blob))\n"
        "except MemoryError:\n    print('MemoryError')\n"
    )
    child = supervise.Child("inflater", [sys.executable, "-c", inflate], dict(os.environ), memory_bytes=GIB)
    child.start()
    child.process.wait(timeout=60)
    assert (tmp_path / "inflater.log").read_text().split() == ["MemoryError"]


@pytest.mark.parametrize("setting", ["lots", "512m", "0", "-4g"])
def test_a_limit_it_cannot_use_stops_make_run_with_one_line(monkeypatch, setting):
    supervise = _supervise()
    monkeypatch.setenv("GPU_WORKER_MEMORY_LIMIT", setting)
    with pytest.raises(SystemExit, match="GPU_WORKER_MEMORY_LIMIT"):
        supervise.worker_memory_limit()
