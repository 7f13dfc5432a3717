"""A worker that is not root runs every sandbox as its own user, whose other tasks (a web server, a desktop's
threads, other runs) the kernel counts against RLIMIT_NPROC outside the run's user namespace. Before the
bound moved inside the namespace, a user holding more tasks than a run's bound could start no run at all
(bubblewrap: "Creating new namespace failed"); now each run may start its own `nproc` and no more."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_worker.contract.limits import Limits
from gpu_worker.sandbox import sandbox_level

REPO = Path(__file__).resolve().parents[3]
HELD = 300  # the worker's user holds more tasks than one run's bound
PROBE = f"""
import sys, threading
sys.path.insert(0, {str(REPO)!r})
stop = threading.Event()
for _ in range({HELD}):
    threading.Thread(target=stop.wait, daemon=True).start()
from gpu_worker.sandbox.session import LearnerSession
LEARNER = '''
import resource, threading
def probe(n):
    wait, started = threading.Event(), 0
    for _ in range(n):
        try:
            threading.Thread(target=wait.wait, daemon=True).start()
        except RuntimeError:
            break
        started += 1
    wait.set()
    return [started, *resource.getrlimit(resource.RLIMIT_NPROC)]
'''
with LearnerSession(LEARNER, ["probe"]) as session:
    print(*session.call("probe", 400))
"""


def _reachable_python() -> str | None:
    """An interpreter uid nobody can run that imports the sandbox: the system's (reachable by every user, as a
    worker's own account would have it), else the venv's."""
    for python in ("/usr/bin/python3", sys.executable):
        check = [
            *_as_nobody(),
            python,
            "-c",
            f"import sys; sys.path.insert(0, {str(REPO)!r}); import yaml, gpu_worker.sandbox.session",
        ]
        if Path(python).exists() and subprocess.run(check, capture_output=True, cwd="/tmp").returncode == 0:
            return python
    return None


def _as_nobody() -> list[str]:
    return [shutil.which("setpriv") or "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]


@pytest.mark.sandbox
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to act as another user")
@pytest.mark.skipif(sandbox_level() != "bubblewrap", reason="needs bubblewrap")
def test_a_run_of_an_unprivileged_worker_starts_its_own_bound_of_tasks_whatever_its_user_holds():
    python = _reachable_python()
    if python is None:
        pytest.skip("no interpreter uid nobody can reach imports the sandbox here")
    done = subprocess.run([*_as_nobody(), python, "-c", PROBE], capture_output=True, text=True, timeout=120, cwd="/tmp")
    assert done.returncode == 0, done.stderr[-2000:]
    started, soft, hard = (int(word) for word in done.stdout.split())
    bound = Limits().nproc
    assert soft == hard == bound  # learner code cannot raise it
    assert bound - 8 <= started < bound  # all but the harness's own few tasks, never more
