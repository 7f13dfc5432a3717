"""Issue 25 point 2 (part): what a sandboxed run can open and see. AF_VSOCK sockets, memfd_secret and file
locks are refused by the seccomp filter, other socket families still work, open files are capped at 1024,
and /sys/fs/cgroup (other runs' cgroups and limits) is not visible."""

import os

import pytest

from gpu_worker.sandbox import cgroup, sandbox_level

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(sandbox_level() != "bubblewrap", reason="needs bubblewrap"),
]

PROBE = """
import ctypes, os, resource, socket
libc = ctypes.CDLL(None, use_errno=True)
ctypes.set_errno(0)
print('VSOCK', libc.socket(40, 1, 0), ctypes.get_errno())
ctypes.set_errno(0)
print('SECRET', libc.syscall(447, 0), ctypes.get_errno())
print('INET', socket.socket(socket.AF_INET, socket.SOCK_STREAM).fileno() > 0)
print('NOFILE', resource.getrlimit(resource.RLIMIT_NOFILE))
held = []
try:
    while len(held) < 5000:
        held.append(os.open('/dev/null', os.O_RDONLY))
except OSError as error:
    print('OPENED', len(held), error.errno)
for fd in held:
    os.close(fd)
print('CGROUPS', os.listdir('/sys/fs/cgroup') if os.path.isdir('/sys/fs/cgroup') else 'absent')
import fcntl, struct
shared = os.open('/usr/lib/os-release' if os.path.exists('/usr/lib/os-release') else '/etc/passwd', os.O_RDONLY)
for name, attempt in [
    ('FLOCK', lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    ('SETLK', lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
    ('OFD', lambda: fcntl.fcntl(shared, 37, struct.pack('hhqqi', fcntl.F_RDLCK, 0, 0, 0, 0))),
    ('GETLK', lambda: fcntl.fcntl(shared, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_RDLCK, 0, 0, 0, 0))),
]:
    try:
        attempt()
        print(name, 'allowed')
    except OSError as error:
        print(name, 'refused', error.errno)
print('GETFL', fcntl.fcntl(shared, fcntl.F_GETFL) >= 0)
def kv_bytes_per_token(c, d): return 0
def num_gpu_blocks(*a): return 0
def max_concurrent_seqs(*a): return 0
"""


def test_vsock_memfd_secret_open_files_and_cgroups_are_out_of_reach(grade):
    stdout = grade("kv-sizing", PROBE, mode="run", limits={"wall_s": 6.0, "cpu_s": 4})["stdout"]
    assert "VSOCK -1 1" in stdout, stdout  # EPERM from the filter, not EAFNOSUPPORT from the kernel
    assert "SECRET -1 1" in stdout, stdout
    assert "INET True" in stdout, stdout
    assert "NOFILE (1024, 1024)" in stdout, stdout
    opened = int(stdout.split("OPENED ")[1].split()[0])
    assert opened < 1024, stdout
    assert "CGROUPS []" in stdout or "CGROUPS absent" in stdout, stdout
    for lock in ("FLOCK", "SETLK", "OFD", "GETLK"):  # a lock on a file every rank can open: a side channel
        assert f"{lock} refused 1" in stdout, stdout
    assert "GETFL True" in stdout, stdout  # fcntl itself still works


HOLD_THREADS = """
import threading, time
held = []
def hold(n):
    for _ in range(n):
        thread = threading.Thread(target=time.sleep, args=(60,), daemon=True)
        thread.start()
        held.append(thread)
    return len(held)
"""
START_THREADS = """
import threading
def start(n):
    threads = [threading.Thread(target=lambda: None) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return n
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root worker gives each run a uid of its own")
def test_a_run_holding_its_uids_whole_process_limit_does_not_starve_a_concurrent_run():
    """Issue 25: every run was uid 65534, so 254 threads held by one run left another none of its 8."""
    from gpu_worker.sandbox import LearnerSession, Limits

    with LearnerSession(HOLD_THREADS, ["hold"], Limits(wall_s=30)) as greedy:
        held = greedy.call("hold", 245)
        with LearnerSession(START_THREADS, ["start"], Limits(wall_s=30)) as honest:
            assert honest.process.uid != greedy.process.uid
            assert honest.call("start", 8) == 8
    assert held == 245


RANKS_EACH_TAKE_600_MIB = """
import torch
held = torch.ones(600 * 1024 * 1024 // 4)  # touched: resident, in every rank
def ring_all_reduce(tensor, comm):
    return tensor
"""


@pytest.mark.skipif(cgroup.describe() != "cgroup", reason="the host offers no cgroups: runs are bounded per process")
def test_the_ring_ranks_share_one_memory_cap(grade):
    """Issue 25: each rank had its own 6 GiB cgroup, so one submission could hold four times that. Alone each rank
    fits in the cap here; together they do not."""
    cap = 2 * 1024**3 + 512 * 1024**2
    result = grade("ring-allreduce", RANKS_EACH_TAKE_600_MIB, mode="run", limits={"run_memory_bytes": cap})
    assert result["verdict"] == "memory_limit", result["message"]
    honest = grade("ring-allreduce", RANKS_EACH_TAKE_600_MIB.replace("600 *", "1 *"), mode="run")
    assert honest["verdict"] != "memory_limit", honest["message"]
