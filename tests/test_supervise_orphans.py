"""No orphans: what a dead process left is killed before it starts again, the children die with a killed
supervisor, and Ctrl-C on the real supervisor (make run's) leaves no process behind, beat included."""

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from testing.workers import wait_for
from tests.test_supervise import ROOT, _supervise


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie is dead, only not yet reaped by whoever adopted it


def test_what_a_killed_process_left_in_its_session_dies_before_it_starts_again(tmp_path, monkeypatch):
    supervise = _supervise()
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    left = tmp_path / "left.pid"
    child = supervise.Child("parent", ["sh", "-c", f"sleep 120 & echo $! > {left}; wait"], dict(os.environ))
    child.start()
    first = child.process.pid
    try:
        orphan = int(wait_for(lambda: left.exists() and left.read_text().strip(), 10, "the child's own child"))
        os.kill(first, signal.SIGKILL)  # as a worker killed with its -B beat inside
        child.process.wait()
        assert _alive(orphan)
        wait_for(lambda: child.check() or child.process.pid != first, 10, "a restart")
        assert not _alive(orphan)
    finally:
        supervise.stop([child], grace=2)


def test_children_die_with_a_supervisor_killed_by_sigkill(tmp_path):
    script = (
        "import sys, time; sys.path.insert(0, 'tests'); from test_supervise import _supervise\n"
        f"supervise = _supervise(); supervise.VAR = __import__('pathlib').Path({str(tmp_path)!r})\n"
        "child = supervise.Child('sleeper', ['sleep', '120'], {}); child.start()\n"
        "print(child.process.pid, flush=True); time.sleep(120)\n"
    )
    supervisor = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        sleeper = int(supervisor.stdout.readline())
        assert _alive(sleeper)
        supervisor.kill()
        supervisor.wait()
        wait_for(lambda: not _alive(sleeper), 10, f"sleep {sleeper} dying with its supervisor")
    finally:
        supervisor.kill()
        supervisor.stdout.close()


def _marked(marker: str) -> dict[int, str]:
    """Our processes, by the variable only this test's supervisor set: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # gone, or not ours to read
    return {pid: line for pid, line in found.items() if _alive(pid)}


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server")
def test_ctrl_c_leaves_no_process_behind_after_a_web_worker_was_killed(tmp_path):
    marker = f"COURSE_SUPERVISE_TEST={uuid.uuid4().hex}"
    env = {
        **os.environ,
        marker.split("=")[0]: marker.split("=")[1],
        "VAR_DIR": str(tmp_path),
        "PORT": str(_supervise().free_port(18900)),
        "GRADING_WORKERS": "1",
        "WEB_PROCESSES": "2",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    env.pop("CACHE_URL", None)
    with open(tmp_path / "supervise.out", "w") as out:
        supervisor = subprocess.Popen(
            [sys.executable, "scripts/supervise.py"], cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
        )

    def role(word: str) -> list[int]:
        return [pid for pid, line in _marked(marker).items() if word in line and _ppid(pid) == supervisor.pid]

    try:
        wait_for(lambda: role(" beat ") and role("web@%h") and role("gpu1@%h"), 120, "beat and the workers")
        assert not [line for line in _marked(marker).values() if " -B " in line]
        (web_worker,) = role("web@%h")
        os.kill(web_worker, signal.SIGKILL)
        wait_for(lambda: [pid for pid in role("web@%h") if pid != web_worker], 30, "the web worker again")
        time.sleep(3)  # long enough for a second beat to show, if one was left or started
        beats = [line for line in _marked(marker).values() if " beat " in line]
        assert len(beats) == 1, beats

        supervisor.send_signal(signal.SIGINT)  # Ctrl-C reaches only the supervisor: its children have own sessions
        supervisor.wait(timeout=90)
        time.sleep(1)
        assert _marked(marker) == {}, (tmp_path / "supervise.out").read_text()[-2000:]
    finally:
        for pid in [supervisor.pid, *_marked(marker)]:  # only what this test started
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        supervisor.wait()
