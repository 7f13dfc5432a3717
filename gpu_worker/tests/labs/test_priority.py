"""A run keeps its worker's low priority: bwrap starts it in a new session, which Linux schedules as one
unit (an autogroup) at nice 0 unless told otherwise, so the run must give its autogroup the worker's nice
value for grading to keep yielding the CPU to the web server."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sandbox

REPO = Path(__file__).resolve().parents[3]
LEARNER = "import os\ndef probe():\n    return [os.nice(0), open('/proc/self/autogroup').read().split()[-1]]\n"
WORKER = f"""
import os
from gpu_worker.sandbox.session import LearnerSession
print(os.nice(7))  # 7 above whatever the worker was started at (scripts/test_worker.sh runs under nice)
with LearnerSession({LEARNER!r}, ["probe"]) as session:
    print(*session.call("probe"))
"""


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="this kernel has no scheduler autogroups")
def test_learner_code_runs_as_nice_as_its_worker_and_so_does_its_autogroup():
    shown = subprocess.run([sys.executable, "-c", WORKER], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    worker, *learner = shown.stdout.split()
    assert learner == [worker, worker]
