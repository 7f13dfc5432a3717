"""Hostile code gets the right verdict, harms nothing, and the next run works normally."""
import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from gpu_worker.sandbox import sandbox_level
from gpu_worker.sandbox.isolation import REPO_ROOT, SANDBOX_UID


SHORT = {"wall_s": 4.0, "cpu_s": 3}  # hostile code must not hold the shared cores for long
needs_bwrap = pytest.mark.skipif(sandbox_level() != "bubblewrap", reason="needs bubblewrap")


def sandbox_processes() -> list[str]:
    """Processes of the sandbox uid started by this test run (other checkouts on the host may grade too)."""
    found = subprocess.run(["ps", "-eo", "pid=,ppid=,uid=,comm="], capture_output=True, text=True).stdout.split("\n")
    rows = {int(cols[0]): (int(cols[1]), int(cols[2]), cols[3]) for cols in map(str.split, found) if len(cols) == 4}

    def ours(pid: int) -> bool:
        while pid in rows and pid > 1:
            if pid == os.getpid():
                return True
            pid = rows[pid][0]
        return False
    return [f"{pid} {comm}" for pid, (_, uid, comm) in rows.items() if uid == SANDBOX_UID and ours(pid)]


@pytest.fixture
def hostile(grade, fixture_source):
    def run(name: str, replace: dict | None = None, **limits) -> dict:
        source = fixture_source("hostile", name)
        for old, new in (replace or {}).items():
            source = source.replace(old, new)
        return grade("kv-sizing", source, limits={**SHORT, **limits})
    yield run
    # the worker serves the next run normally and nothing of the hostile run is left
    assert grade("kv-sizing", fixture_source("kv-sizing", "reference"))["verdict"] == "accepted"
    assert sandbox_processes() == []


@pytest.mark.parametrize("name, verdict", [
    ("infinite_loop", "time_limit"),
    ("sleep_forever", "time_limit"),
    ("fork_bomb", "time_limit"),
    ("fake_result_exit", "runtime_error"),
    ("kill_parent", "runtime_error"),
    ("steal_channel", "time_limit"),
])
def test_hostile_verdicts(hostile, name, verdict):
    result = hostile(name)
    assert result["verdict"] == verdict, result["message"]
    assert result["score"] < 0.5


def test_a_time_limit_names_the_test_that_hung_and_the_rest_say_they_did_not_run(hostile):
    result = hostile("infinite_loop")
    assert result["verdict"] == "time_limit"
    assert result["message"].startswith("test kv-llama3-8b-fp16: ") and "wall-clock limit" in result["message"]
    first, *rest = [test for test in result["tests"] if test["visibility"] == "public"]
    assert first["name"] == "kv-llama3-8b-fp16" and "wall-clock limit" in first["message"]
    assert rest and all(t["message"] == "not run: the run stopped at test kv-llama3-8b-fp16" for t in rest)


def test_unbounded_memory_is_memory_limit(hostile):
    result = hostile("memory_hog", memory_bytes=512 * 1024**2)
    assert result["verdict"] == "memory_limit" and "MiB" in result["message"]


def test_unbounded_printing_is_capped(hostile):
    result = hostile("print_flood", wall_s=2.0, output_bytes=30_000)
    assert result["verdict"] == "time_limit"
    assert 30_000 <= len(result["stdout"]) < 30_000 + 100 and result["stdout"].endswith("(output truncated)")


def test_network_is_unreachable(hostile):
    received = []
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(2)
        thread = threading.Thread(target=lambda: received.append(_accept(server)), daemon=True)
        thread.start()
        result = hostile("network", {"PORT = 0": f"PORT = {server.getsockname()[1]}"})
        thread.join()
    assert result["verdict"] == "runtime_error" and "Error" in result["message"]
    assert received == [None]


def _accept(server):
    try:
        return server.accept()[0].recv(100)
    except OSError:
        return None


@pytest.mark.parametrize("target", ["/etc/pwned-by-learner", str(REPO_ROOT / "pwned-by-learner")])
def test_writing_outside_tmp_fails(hostile, target):
    result = hostile("write_outside_tmp", {"/etc/pwned-by-learner": target})
    refusals = ("Read-only", "denied", "No such file or directory")  # the last: the folder is not even there
    assert result["verdict"] == "runtime_error" and any(word in result["message"] for word in refusals)
    assert not Path(target).exists()


def test_worker_environment_and_files_stay_hidden(hostile, monkeypatch):
    monkeypatch.setenv("LAB_PLANTED_SECRET", "planted-secret-value")
    result = hostile("read_env", {"REPO/": f"{REPO_ROOT}/"})
    assert result["verdict"] == "wrong_answer"  # it answers 0 everywhere
    assert "planted-secret-value" not in result["stdout"] and "LAB_PLANTED_SECRET" not in result["stdout"]
    assert "ENV {" in result["stdout"]
    if sandbox_level() == "bubblewrap":
        assert "FOUND" not in result["stdout"]


@needs_bwrap
def test_tampering_with_builtins_and_the_harness_cannot_fake_success(hostile):
    result = hostile("tamper_harness")
    assert result["verdict"] == "wrong_answer", result["message"]
    assert "STOLE THE REFERENCE" not in result["stdout"]


@needs_bwrap
def test_sandbox_runs_as_nobody_with_limits(grade):
    probe = ("import os, resource\n"
             "print('uid', os.getuid(), 'nproc', resource.getrlimit(resource.RLIMIT_NPROC)[0],\n"
             "      'fsize', resource.getrlimit(resource.RLIMIT_FSIZE)[0], 'cwd', os.getcwd(), os.listdir('/tmp'))\n"
             "def kv_bytes_per_token(c, d): return 0\n"
             "def num_gpu_blocks(*a): return 0\n"
             "def max_concurrent_seqs(*a): return 0\n")
    stdout = grade("kv-sizing", probe, mode="run")["stdout"]
    assert f"uid {SANDBOX_UID} " in stdout and "fsize 16777216" in stdout and f"nproc {256}" in stdout


def test_a_harness_that_stops_reading_cannot_hang_the_grader(fixture_source):
    import time
    from gpu_worker.sandbox import LearnerError, LearnerSession, Limits
    session = LearnerSession(fixture_source("hostile", "steal_channel"), ["kv_bytes_per_token"], Limits(wall_s=3.0))
    started = time.monotonic()
    with session, pytest.raises(LearnerError) as failure:
        session.call("kv_bytes_per_token", "x" * 2_000_000, 2)  # far more than a pipe buffer holds
    assert failure.value.verdict == "time_limit" and failure.value.fatal
    assert time.monotonic() - started < 8
