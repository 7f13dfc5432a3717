"""The shell entry point and run_lab: JSON out, exit 0 whatever the verdict; sandbox levels and fallback."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_worker.labs import run_lab
from gpu_worker.sandbox import sandbox_level

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "gpu_worker" / "graders" / "fixtures"


@pytest.mark.parametrize("name, verdict", [("reference", "accepted"), ("wrong_no_factor_two", "wrong_answer")])
def test_cli_prints_the_result_json_and_exits_zero(name, verdict):
    done = subprocess.run([sys.executable, "-m", "gpu_worker.grade", "kv-sizing",
                           str(FIXTURES / "kv-sizing" / f"{name}.py"), "--mode", "submit", "--submission-id", "5"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["verdict"] == verdict and result["submission_id"] == 5 and result["lab"] == "kv-sizing"
    assert set(result) >= {"mode", "score", "max_score", "tests", "metrics", "plots", "stdout", "worker"}


def test_run_lab_rejects_an_unknown_mode():
    result = run_lab(3, "kv-sizing", "grade-everything", "x = 1\n")
    assert result["verdict"] == "internal_error" and "mode" in result["message"]


def test_sandbox_level_is_reported_and_can_be_forced(monkeypatch):
    assert sandbox_level() in ("bubblewrap", "rlimits+netns", "rlimits")
    monkeypatch.setenv("GPU_WORKER_SANDBOX", "rlimits")
    assert sandbox_level() == "rlimits"
    monkeypatch.setenv("GPU_WORKER_SANDBOX", "chroot")
    with pytest.raises(ValueError, match="GPU_WORKER_SANDBOX"):
        sandbox_level()


def test_fallback_without_bubblewrap_grades_or_refuses_to_run_as_root(monkeypatch, grade, fixture_source):
    from gpu_worker.sandbox.process import _world_can_reach
    monkeypatch.setenv("GPU_WORKER_SANDBOX", "rlimits")
    result = grade("kv-sizing", fixture_source("kv-sizing", "reference"))
    if os.geteuid() == 0 and not _world_can_reach(Path(sys.executable)):
        assert result["verdict"] == "internal_error" and "as root" in result["message"]
        return
    assert result["verdict"] == "accepted" and result["worker"]["sandbox"] == "rlimits"
    result = grade("kv-sizing", fixture_source("hostile", "sleep_forever"), limits={"wall_s": 2.0})
    assert result["verdict"] == "time_limit"
