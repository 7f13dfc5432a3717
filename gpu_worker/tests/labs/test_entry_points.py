"""The shell entry point and grade_run: JSON out, exit 0 whatever the verdict."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_worker.grading import grade_run

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "gpu_worker" / "graders" / "fixtures"


@pytest.mark.sandbox
@pytest.mark.parametrize("name, verdict", [("reference", "accepted"), ("wrong_no_factor_two", "wrong_answer")])
def test_cli_prints_the_result_json_and_exits_zero(name, verdict):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_worker.grade",
            "kv-sizing",
            str(FIXTURES / "kv-sizing" / f"{name}.py"),
            "--mode",
            "submit",
            "--submission-id",
            "5",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["verdict"] == verdict and result["submission_id"] == 5 and result["lab"] == "kv-sizing"
    assert set(result) >= {"mode", "score", "max_score", "tests", "metrics", "plots", "stdout", "worker"}


def test_grade_run_rejects_an_unknown_mode():
    result = grade_run(3, "kv-sizing", "grade-everything", "x = 1\n")
    assert result["verdict"] == "internal_error" and "mode" in result["message"]


@pytest.mark.sandbox
def test_a_run_past_the_watchdog_is_internal_error_with_no_score():
    """In its own process: past the limit the worker asks for its own warm shutdown (SIGTERM), here ignored."""
    code = (
        "import json, signal\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "from gpu_worker.grading import grade_run\n"
        "result = grade_run(4, 'kv-sizing', 'submit', 'while True:\\n    pass\\n', limit_s=0.2)\n"
        "print(json.dumps(result), flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    result = json.loads(done.stdout.splitlines()[0])
    assert result["verdict"] == "internal_error" and "Grading stopped" in result["message"]
    assert result["score"] is None and result["worker"]["host"]
