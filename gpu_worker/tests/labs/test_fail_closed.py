"""Fail closed: without bubblewrap no learner code runs, unless an operator sets the loud unsafe override."""

import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from gpu_worker.sandbox import run_python
from gpu_worker.sandbox.isolation import UNSAFE_OVERRIDE, sandbox_level, sandbox_status

REPO = Path(__file__).resolve().parents[3]
MISSING_BWRAP = "/nonexistent/bwrap"


@pytest.fixture
def no_bwrap(monkeypatch):
    monkeypatch.setenv("GPU_WORKER_BWRAP", MISSING_BWRAP)
    monkeypatch.delenv(UNSAFE_OVERRIDE, raising=False)


def canary_source(marker: Path) -> str:
    """A kv-sizing answer that leaves a file on the host when it runs at all (uid nobody may write /tmp)."""
    return (
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "def kv_bytes_per_token(c, d): return 0\n"
        "def num_gpu_blocks(*a): return 0\n"
        "def max_concurrent_seqs(*a): return 0\n"
    )


def test_without_bubblewrap_health_says_why_and_what_to_install(no_bwrap):
    status = sandbox_status()
    assert status["ok"] is False and status["level"] == "none" and sandbox_level() == "none"
    assert "apt-get install bubblewrap" in status["reason"]


def test_a_path_without_bwrap_is_the_same_as_not_installed(monkeypatch):
    monkeypatch.delenv("GPU_WORKER_BWRAP", raising=False)
    monkeypatch.delenv(UNSAFE_OVERRIDE, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert sandbox_status()["ok"] is False and "not installed" in sandbox_status()["reason"]


def test_without_bubblewrap_nothing_runs_and_the_verdict_says_so(no_bwrap, grade):
    marker = Path("/tmp") / f"fail-closed-{uuid.uuid4().hex}"
    result = grade("kv-sizing", canary_source(marker))
    assert result["verdict"] == "internal_error"
    assert "cannot isolate code safely, so nothing ran" in result["message"] and "bubblewrap" in result["message"]
    assert not marker.exists()
    with pytest.raises(RuntimeError, match="apt-get install bubblewrap"):
        run_python(["-c", f"open({str(marker)!r}, 'w')"])
    assert not marker.exists()


def test_asking_for_a_weaker_level_without_the_override_is_refused(monkeypatch):
    from gpu_worker.sandbox import Limits
    from gpu_worker.sandbox.process import SandboxProcess, SandboxUnavailable

    monkeypatch.delenv(UNSAFE_OVERRIDE, raising=False)
    for level in ("rlimits", "rlimits+netns", "chroot"):
        with pytest.raises(SandboxUnavailable, match=UNSAFE_OVERRIDE):
            SandboxProcess([], Limits(), level=level, python_args=["-c", "pass"]).start()


def test_status_names_how_a_run_is_bounded_as_a_whole(monkeypatch):
    monkeypatch.setenv("GPU_WORKER_NO_CGROUPS", "1")
    assert sandbox_status()["run_bound"] == "rlimit"
    monkeypatch.delenv("GPU_WORKER_NO_CGROUPS")
    assert sandbox_status()["run_bound"] in ("cgroup", "rlimit")
    assert set(sandbox_status()) >= {"ok", "level", "reason", "run_bound", "seccomp"}


def test_the_unsafe_override_runs_code_with_a_loud_warning_every_run(no_bwrap, monkeypatch, grade, caplog):
    from gpu_worker.sandbox.process import _world_can_reach

    monkeypatch.setenv(UNSAFE_OVERRIDE, "1")
    status = sandbox_status()
    assert status["ok"] is True and status["unsafe"] is True and status["level"] in ("rlimits+netns", "rlimits")
    assert "UNSAFE" in status["reason"] and "not installed" in status["reason"]
    with caplog.at_level(logging.WARNING, logger="gpu_worker.sandbox.process"):
        first = grade("kv-sizing", (REPO / "gpu_worker/graders/fixtures/kv-sizing/reference.py").read_text())
        grade("kv-sizing", "x = 1\n")
    assert sum("UNSAFE" in record.getMessage() for record in caplog.records) == 2
    if os.geteuid() == 0 and not _world_can_reach(Path(sys.executable)):
        assert first["verdict"] == "internal_error" and "as root" in first["message"]
        return
    assert first["verdict"] == "accepted" and first["worker"]["sandbox"] == status["level"]


@pytest.mark.parametrize("require, outcome", [("", "1 skipped"), ("1", "1 error")])
def test_sandbox_tests_skip_with_the_reason_unless_services_are_required(tmp_path, require, outcome):
    (tmp_path / "test_needs_sandbox.py").write_text(
        "import pytest\n\n@pytest.mark.sandbox\ndef test_runs_learner_code():\n    pass\n"
    )
    env = {**os.environ, "GPU_WORKER_BWRAP": MISSING_BWRAP, "REQUIRE_SERVICES": require, "PYTHONPATH": str(REPO)}
    env.pop(UNSAFE_OVERRIDE, None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "testing.sandbox",
            "-c",
            os.devnull,
            "-rsf",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:django",
            "-q",
            str(tmp_path),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert outcome in done.stdout, done.stdout + done.stderr
    assert "apt-get install bubblewrap" in done.stdout
