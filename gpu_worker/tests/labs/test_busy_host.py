"""A verdict is a property of the code, not of the host: CPU hogs beside the grader and a grader stopped for
longer than the wall limit leave right answers accepted; overruns are told apart (sandbox/clock.py)."""

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gpu_worker.sandbox.clock import Usage, judge_overrun

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "gpu_worker" / "graders" / "fixtures"
LABS = ("kv-sizing", "scheduler", "paged-attention", "ring-allreduce")


def test_an_overrun_is_the_learners_only_when_the_code_had_its_time():
    spun = judge_overrun(wall_s=20, cpu_limit_s=10, elapsed_s=11, used=Usage(9.5, 0.2), stalled_s=0)
    waited = judge_overrun(wall_s=20, cpu_limit_s=10, elapsed_s=21, used=Usage(0.3, 0.1), stalled_s=0)
    starved = judge_overrun(wall_s=20, cpu_limit_s=10, elapsed_s=80, used=Usage(2.0, 70.0), stalled_s=0)
    paused = judge_overrun(wall_s=20, cpu_limit_s=10, elapsed_s=80, used=Usage(2.0, 0.0), stalled_s=65)
    assert spun == ("time_limit", "still running your code after 9.5 s of CPU (the limit is 10 s)")
    assert waited[0] == "time_limit" and "used only 0.3 s of CPU: it was waiting" in waited[1]
    busy = judge_overrun(wall_s=20, cpu_limit_s=30, elapsed_s=21, used=Usage(15.0, 0.5), stalled_s=0)
    assert busy == ("time_limit", "still running your code after 20 s (15.0 s of CPU)")
    for verdict, message in (starved, paused):
        assert verdict == "internal_error" and "the grading host was overloaded" in message
        assert "does not count against you" in message


def _grade(lab: str, *, nice: int = 10) -> subprocess.Popen:
    command = ["nice", "-n", str(nice), sys.executable, "-m", "gpu_worker.grade", lab]
    return subprocess.Popen(
        command + [str(FIXTURES / lab / "reference.py")], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _verdict(process: subprocess.Popen, timeout: float = 900) -> dict:
    out, err = process.communicate(timeout=timeout)
    assert out, err.decode()[-2000:]
    return json.loads(out)


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.timeout(1200)  # starved on purpose: about 3 minutes on an otherwise idle 2-core host
def test_reference_answers_are_accepted_at_nice_10_beside_twice_as_many_hogs_as_cores():
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        with ThreadPoolExecutor(len(LABS)) as pool:
            results = dict(zip(LABS, pool.map(lambda lab: _verdict(_grade(lab)), LABS)))
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    for lab, result in results.items():
        assert (result["verdict"], result["score"]) == ("accepted", 1.0), (lab, result["message"])


def _sandbox_started(pid: int) -> bool:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return children.exists() and bool(children.read_text().split())


PAUSED_GRADE = """
import json, sys
from gpu_worker.grading import grade_run
print(json.dumps(grade_run(None, "kv-sizing", "submit", open(sys.argv[1]).read(), limits={"wall_s": 5.0})))
"""


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_grader_stopped_for_longer_than_the_runs_whole_backstop_still_accepts_a_right_answer():
    """With a 5 s wall limit the backstop is 20 s; the grading process is stopped for 25 s while its sandbox
    starts (as a worker paused with SIGSTOP, or starved): the stop is the grader's time, not the run's."""
    reference = str(FIXTURES / "kv-sizing" / "reference.py")
    process = subprocess.Popen(
        [sys.executable, "-c", PAUSED_GRADE, reference], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while not _sandbox_started(process.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # the sandbox is starting its interpreter: the grader waits on it
    os.kill(process.pid, signal.SIGSTOP)
    time.sleep(25)
    os.kill(process.pid, signal.SIGCONT)
    result = _verdict(process)
    assert (result["verdict"], result["score"]) == ("accepted", 1.0), result["message"]
