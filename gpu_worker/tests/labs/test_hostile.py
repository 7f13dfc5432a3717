"""Hostile code gets the right verdict, harms nothing, and the next run works normally."""

import os
import socket
import threading
from pathlib import Path

import pytest

from gpu_worker.sandbox import cgroup, sandbox_level, uids
from gpu_worker.sandbox.isolation import PYTHON_PREFIX, REPO_ROOT, SANDBOX_UID
from gpu_worker.sandbox.watch import descendants

pytestmark = pytest.mark.sandbox
SHORT = {"wall_s": 4.0, "cpu_s": 3}  # hostile code must not hold the shared cores for long
MIB = 1024**2
needs_bwrap = pytest.mark.skipif(sandbox_level() != "bubblewrap", reason="needs bubblewrap")


def sandbox_processes() -> list[str]:
    """Processes started from this test process that run as another uid than ours: a run's (other checkouts'
    runs may share the host). A run cannot leave the tree: bubblewrap's pid namespace dies with it, and a
    cgroup run is checked too."""
    found = []
    for pid in descendants(os.getpid()):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
        if uid != os.getuid():
            found.append(f"{pid} uid {uid} {Path(f'/proc/{pid}/comm').read_text().strip()}")
    return found


@pytest.fixture
def hostile(grade, fixture_source):
    cgroups_before = set(run_cgroups())  # a run of ours a test killed may have left one

    def run(name: str, replace: dict | None = None, **limits) -> dict:
        source = fixture_source("hostile", name)
        for old, new in (replace or {}).items():
            source = source.replace(old, new)
        return grade("kv-sizing", source, limits={**SHORT, **limits})

    yield run
    # the worker serves the next run normally and nothing of the hostile run is left
    assert grade("kv-sizing", fixture_source("kv-sizing", "reference"))["verdict"] == "accepted"
    assert sandbox_processes() == []
    assert set(run_cgroups()) <= cgroups_before


def run_cgroups() -> list[str]:
    """The run cgroups this process created (another checkout may be testing on the same host)."""
    found = cgroup.hierarchy()
    if found is None:
        return []
    parents = {found.memory_parent, found.pids_parent}
    return [str(path) for parent in parents for path in parent.glob(f"{cgroup.RUN_PREFIX}{cgroup.OWNER}-*")]


@pytest.mark.parametrize(
    "name, verdict",
    [
        ("infinite_loop", "time_limit"),
        ("sleep_forever", "time_limit"),
        ("fork_bomb", "time_limit"),
        ("fake_result_exit", "runtime_error"),
        ("kill_parent", "runtime_error"),
        ("steal_channel", "time_limit"),
    ],
)
def test_hostile_verdicts(hostile, name, verdict):
    result = hostile(name)
    assert result["verdict"] == verdict, result["message"]
    assert result["score"] < 0.5


def test_a_time_limit_names_the_test_that_hung_and_the_rest_say_they_did_not_run(hostile):
    result = hostile("infinite_loop")
    assert result["verdict"] == "time_limit"
    limits = ("wall-clock limit", "CPU time limit")  # whichever the loop hits first on a loaded host
    assert result["message"].startswith("test kv-llama3-8b-fp16: ")
    assert any(limit in result["message"] for limit in limits), result["message"]
    first, *rest = [test for test in result["tests"] if test["visibility"] == "public"]
    assert first["name"] == "kv-llama3-8b-fp16" and any(limit in first["message"] for limit in limits)
    assert rest and all(t["message"] == "not run: the run stopped at test kv-llama3-8b-fp16" for t in rest)
    assert {t["stopped_at"] for t in [first, *rest]} == {"kv-llama3-8b-fp16"}


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
    refusals = ("Read-only", "denied", "No such file")  # the repo is not even in the sandbox unless the venv is
    assert result["verdict"] == "runtime_error" and any(words in result["message"] for words in refusals)
    assert not Path(target).exists()


def test_worker_environment_and_files_stay_hidden(hostile, monkeypatch):
    monkeypatch.setenv("LAB_PLANTED_SECRET", "planted-secret-value")
    result = hostile("read_env", {"REPO/": f"{REPO_ROOT}/"})
    assert result["verdict"] == "wrong_answer"  # it answers 0 everywhere
    assert "planted-secret-value" not in result["stdout"] and "LAB_PLANTED_SECRET" not in result["stdout"]
    assert "ENV {" in result["stdout"]
    if sandbox_level() == "bubblewrap":  # only the folders that lead to the interpreter's venv, bound read-only
        found = [line[6:] for line in result["stdout"].splitlines() if line.startswith("FOUND ")]
        python_path = {PYTHON_PREFIX, *PYTHON_PREFIX.parents}
        assert [path for path in found if Path(path) not in python_path] == []


@needs_bwrap
def test_tampering_with_builtins_and_the_harness_cannot_fake_success(hostile):
    result = hostile("tamper_harness")
    assert result["verdict"] == "wrong_answer", result["message"]
    assert "STOLE THE REFERENCE" not in result["stdout"]


@needs_bwrap
def test_sandbox_runs_as_nobody_with_limits(grade):
    probe = (
        "import os, resource\n"
        "print('uid', os.getuid(), 'nproc', resource.getrlimit(resource.RLIMIT_NPROC)[0],\n"
        "      'fsize', resource.getrlimit(resource.RLIMIT_FSIZE)[0], 'cwd', os.getcwd(), os.listdir('/tmp'))\n"
        "def kv_bytes_per_token(c, d): return 0\n"
        "def num_gpu_blocks(*a): return 0\n"
        "def max_concurrent_seqs(*a): return 0\n"
    )
    stdout = grade("kv-sizing", probe, mode="run")["stdout"]
    uid = int(stdout.split("uid ", 1)[1].split()[0])
    pool = range(uids.POOL_BASE, uids.POOL_BASE + uids.POOL_SIZE)
    assert uid in pool if os.geteuid() == 0 else uid == SANDBOX_UID, stdout  # root gives each run a uid of its own
    assert "fsize 16777216" in stdout and f"nproc {256}" in stdout


def test_a_harness_that_stops_reading_cannot_hang_the_grader(fixture_source):
    import time

    from gpu_worker.sandbox import LearnerError, LearnerSession, Limits
    from gpu_worker.sandbox.clock import backstop_s

    session = LearnerSession(fixture_source("hostile", "steal_channel"), ["kv_bytes_per_token"], Limits(wall_s=3.0))
    started = time.monotonic()
    with session, pytest.raises(LearnerError) as failure:
        session.call("kv_bytes_per_token", "x" * 2_000_000, 2)  # far more than a pipe buffer holds
    assert failure.value.verdict == "time_limit" and failure.value.fatal
    assert time.monotonic() - started < backstop_s(3.0) + 5  # ended by its own clock, at the latest the backstop


@pytest.mark.parametrize("bound", ["cgroup", "rlimit"])
def test_children_together_over_the_run_memory_end_memory_limit(hostile, monkeypatch, bound):
    """Each child stays under the per-process limit; together they pass the run's: the run ends, nothing is left."""
    if bound == "rlimit":
        monkeypatch.setenv("GPU_WORKER_NO_CGROUPS", "1")
    elif cgroup.hierarchy() is None:
        pytest.skip("this host offers no cgroup for runs")
    result = hostile("fork_memory_fanout", run_memory_bytes=256 * MIB, wall_s=10.0)
    assert result["verdict"] == "memory_limit", result["message"]
    assert "256 MiB" in result["message"] and result["score"] < 0.5


@pytest.mark.skipif(cgroup.hierarchy() is None, reason="this host offers no cgroup for runs")
def test_the_run_process_count_is_capped_by_its_cgroup(grade):
    cgroups_before = set(run_cgroups())
    probe = (
        "import os, time\n"
        "started = 0\n"
        "while started < 200:\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(3); os._exit(0)\n"
        "        started += 1\n"
        "    except OSError:\n"
        "        break\n"
        "print('STARTED', started)\n"
        "def kv_bytes_per_token(c, d): return 0\n"
        "def num_gpu_blocks(*a): return 0\n"
        "def max_concurrent_seqs(*a): return 0\n"
    )
    stdout = grade("kv-sizing", probe, mode="run", limits={**SHORT, "run_pids": 40})["stdout"]
    started = int(stdout.split("STARTED ")[1].split()[0])
    assert 0 < started < 40, stdout
    assert sandbox_processes() == [] and set(run_cgroups()) <= cgroups_before


@needs_bwrap
def test_seccomp_refuses_what_learner_code_never_needs_and_etc_is_minimal(grade):
    probe = (
        "import ctypes, os, threading\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "for name, call in [('unshare', lambda: libc.unshare(0x10000000)),\n"
        "                   ('ptrace', lambda: libc.ptrace(0, 0, 0, 0)),\n"
        "                   ('personality', lambda: libc.personality(0x0040000))]:\n"
        "    ctypes.set_errno(0)\n"
        "    print('CALL', name, call(), ctypes.get_errno())\n"
        "worker = threading.Thread(target=print, args=('THREAD ok',)); worker.start(); worker.join()\n"
        "pid = os.fork()\n"
        "if pid == 0: os._exit(3)\n"
        "print('FORK', os.waitpid(pid, 0)[1] >> 8)\n"
        "print('ETC', sorted(os.listdir('/etc')))\n"
        "print('USERS', [line.split(':')[0] for line in open('/etc/passwd')])\n"
        "def kv_bytes_per_token(c, d): return 0\n"
        "def num_gpu_blocks(*a): return 0\n"
        "def max_concurrent_seqs(*a): return 0\n"
    )
    stdout = grade("kv-sizing", probe, mode="run")["stdout"]
    for name in ("unshare", "ptrace", "personality"):
        assert f"CALL {name} -1 1" in stdout, stdout  # EPERM, though uid nobody could unshare a user ns
    assert "THREAD ok" in stdout and "FORK 3" in stdout
    listed = eval(stdout.split("ETC ")[1].splitlines()[0])
    assert "shadow" not in listed and "ssh" not in listed and {"passwd", "hosts", "ld.so.cache"} <= set(listed)
    assert "USERS ['root', 'nobody']" in stdout


@pytest.mark.skipif(cgroup.hierarchy() is None, reason="this host offers no cgroup for runs")
def test_a_run_cgroup_left_by_a_killed_worker_is_swept_but_a_young_one_is_kept(monkeypatch):
    import time
    import uuid

    parent = cgroup.hierarchy().pids_parent
    stale, young = (parent / f"{cgroup.RUN_PREFIX}test-{uuid.uuid4().hex[:8]}" for _ in range(2))
    stale.mkdir()
    young.mkdir()
    try:
        os.utime(stale, (time.time() - 2 * cgroup.STALE_S,) * 2)
        monkeypatch.setattr(cgroup, "_last_sweep", [0.0])
        cgroup.create(256 * MIB, 16).remove()
        assert not stale.exists() and young.exists()
    finally:
        for folder in (stale, young):
            if folder.exists():
                folder.rmdir()
