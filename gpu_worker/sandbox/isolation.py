"""Builds the command line that isolates learner code with bubblewrap, and says whether this host can.

Fail closed: without working bubblewrap no learner code runs, unless an operator sets the
development override GPU_WORKER_UNSAFE_NO_SANDBOX=1 (then rlimits and, where possible, a network
namespace only, with a loud warning on every run).
"""

import functools
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gpu_worker.sandbox import cgroup, etc, seccomp

log = logging.getLogger(__name__)

UNSAFE_LEVELS = ("rlimits+netns", "rlimits")
LEVELS = ("bubblewrap", *UNSAFE_LEVELS, "none")
UNSAFE_OVERRIDE = "GPU_WORKER_UNSAFE_NO_SANDBOX"
BWRAP_ENV = "GPU_WORKER_BWRAP"  # the bubblewrap binary (a name on PATH or a path); tests point it elsewhere
SANDBOX_UID = 65534  # nobody
HARNESS_DIR = Path(__file__).resolve().parent
# Where harness files are bound read-only inside the (otherwise empty) sandbox root.
MOUNT_ROOT = "/mnt/sandbox" if Path("/mnt").is_dir() and not Path("/mnt").is_symlink() else "/tmp/.sandbox"
REPO_ROOT = HARNESS_DIR.parents[1]
CLONE_NEWNET = 0x40000000
# The interpreter as the sandbox sees it: the venv resolved, since a symlinked venv is bound by its target.
PYTHON_PREFIX = Path(sys.prefix).resolve()
PYTHON = str(PYTHON_PREFIX / "bin" / Path(sys.executable).name)


def bwrap_binary() -> str:
    return os.environ.get(BWRAP_ENV, "bwrap")


def _probe_bwrap(binary: str) -> tuple[str | None, str]:
    """(the usable bwrap path or None, why not), probed once per binary and PATH."""
    return _probe_bwrap_on(binary, os.environ.get("PATH", ""))


@functools.cache
def _probe_bwrap_on(binary: str, path: str) -> tuple[str | None, str]:
    bwrap = shutil.which(binary, path=path)
    if not bwrap:
        return None, "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    try:
        probe = subprocess.run(
            [
                bwrap,
                "--ro-bind",
                "/",
                "/",
                "--unshare-net",
                "--unshare-pid",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "true",
            ],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"bubblewrap ({bwrap}) did not run: {error}"
    if probe.returncode != 0:
        detail = probe.stderr.decode(errors="replace").strip()[:300]
        return None, (
            f"bubblewrap ({bwrap}) cannot create namespaces here ({detail}): allow user namespaces "
            "(sysctl user.max_user_namespaces > 0) or run the worker as docker-compose.yml does"
        )
    return bwrap, ""


@functools.cache
def _probe_netns() -> bool:
    unshare = shutil.which("unshare")
    if not unshare:
        return False
    try:
        return subprocess.run([unshare, "--net", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def unsafe_override() -> bool:
    return os.environ.get(UNSAFE_OVERRIDE) == "1"


def sandbox_level() -> str:
    """ "bubblewrap"; else "none" (nothing runs); an unsafe level only under the explicit override."""
    if _probe_bwrap(bwrap_binary())[0]:
        return "bubblewrap"
    if not unsafe_override():
        return "none"
    return "rlimits+netns" if _probe_netns() else "rlimits"


def sandbox_status() -> dict:
    """Whether learner code can run here, how it is isolated, and what an operator should do if not.

    `run_bound`: "cgroup" when the kernel caps each run's total memory and processes, "rlimit" when
    only per-process limits (and a memory poller) do."""
    reason = _probe_bwrap(bwrap_binary())[1]
    level = sandbox_level()
    closed = unreadable_by_runs(_run_reads()) if os.geteuid() == 0 else ""  # runs are another uid then
    if closed:
        reason = (
            f"{closed} is not readable by the sandbox's uid, so learner code cannot import Python's packages: "
            f"run `chmod -R go+rX {PYTHON_PREFIX}` (scripts/bootstrap.sh does it)"
        )
    status = {
        "ok": level != "none" and not closed,
        "level": level,
        "reason": reason,
        "run_bound": cgroup.describe(),
        "seccomp": level == "bubblewrap" and seccomp.supported(),
        "unsafe": level in UNSAFE_LEVELS,
    }
    if status["unsafe"]:
        status["reason"] = (
            f"UNSAFE development mode ({UNSAFE_OVERRIDE}=1): learner code runs without namespace "
            f"isolation because {reason}"
        )
    return status


def _run_reads() -> list[Path]:
    """Folders a sandboxed run reads Python from: the venv (bound as it is) and torch's package in it."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    torch_dir = Path(spec.origin).resolve().parent if spec is not None and spec.origin else None
    return [PYTHON_PREFIX] + ([torch_dir] if torch_dir else [])


def unreadable_by_runs(folders: list[Path]) -> str:
    """The first folder others cannot enter and list: the first of `folders`, then every folder on the way
    from it down to each of the others (the folders above it are bubblewrap's own inside the sandbox)."""
    top = folders[0]
    for folder in folders:
        below = [path for path in reversed(folder.parents) if path.is_relative_to(top)] + [folder]
        for path in below:
            try:
                if path.stat().st_mode & 0o005 != 0o005:
                    return str(path)
            except OSError:
                return str(path)
    return ""


def sandbox_env(extra: dict | None = None) -> dict:
    """The whole environment learner code gets: what Python and torch need, no secrets."""
    env = {
        "PATH": f"{PYTHON_PREFIX / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "XDG_CACHE_HOME": "/tmp/.cache",
        "TRITON_CACHE_DIR": "/tmp/.triton",
        "MPLCONFIGDIR": "/tmp/.mpl",
        "TORCHINDUCTOR_CACHE_DIR": "/tmp/.inductor",
    }
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    env.update(extra or {})
    return env


SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")  # /etc: see etc.py


def _system_binds() -> list[str]:
    """The new root starts empty: bring in only the system dirs (read-only) that programs need.
    Everything else (/work, /home, /root, /srv, /var, other checkouts, the repo) stays out."""
    args = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args + etc.bwrap_args() + ["--ro-bind-try", "/sys", "/sys", "--tmpfs", "/sys/fs/cgroup"]


def _traversable_parents(path: Path) -> list[str]:
    """Make the dirs above a bind point traversable by uid nobody (bwrap would create them 0700)."""
    args = []
    for parent in reversed(path.parents):
        if str(parent) not in ("/", "/tmp", "/var", "/var/tmp", "/dev", "/dev/shm"):
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def bwrap_command(
    argv: list[str],
    limits,
    env: dict,
    file_binds: dict[str, str],
    seccomp_fd: int | None = None,
    uid: int = SANDBOX_UID,
) -> list[str]:
    """bwrap argv: an empty root with the system dirs and Python read-only, private /tmp, no network, an
    unprivileged `uid` (the run's own, from uids.py, when the worker is root; else nobody in a user namespace);
    with `seccomp_fd` (passed to the child) the filter of seccomp.py applies to everything inside."""
    cmd = [_probe_bwrap(bwrap_binary())[0] or bwrap_binary(), *_system_binds()]
    cmd += [
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--perms",
        "1777",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--perms",
        "1777",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/dev/shm",
        "--perms",
        "1777",
        "--size",
        str(16 * 1024 * 1024),
        "--tmpfs",
        "/var/tmp",
    ]
    # Python itself (the base install and the venv), bound after /tmp so a checkout in /tmp works too.
    for needed in sorted({Path(sys.base_prefix).resolve(), PYTHON_PREFIX}, key=lambda p: len(p.parts)):
        if not any(str(needed).startswith(f"{name}/") for name in SYSTEM_DIRS):
            cmd += _traversable_parents(needed) + ["--ro-bind", str(needed), str(needed)]
    for device in sorted(Path("/dev").glob("nvidia*")):  # GPU hosts: device nodes only
        cmd += ["--dev-bind-try", str(device), str(device)]
    made = set()
    for source, target in sorted(file_binds.items(), key=lambda item: item[1]):
        for parent in reversed(Path(target).parents):
            if str(parent).startswith(MOUNT_ROOT) and parent not in made:
                cmd += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        cmd += ["--ro-bind", source, target]
    cmd += [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--chdir",
        "/tmp",
        "--hostname",
        "localhost",
    ]
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if os.geteuid() == 0:  # root: drop to a real unprivileged uid so RLIMIT_NPROC and file modes apply
        cmd += [
            "--cap-add",
            "CAP_SETUID,CAP_SETGID",
            "--",
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]
    else:
        cmd += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--"]
    return cmd + argv


def drop_privileges_in_child(with_netns: bool, drop_uid: bool, uid: int = SANDBOX_UID) -> None:
    """Fallback isolation, run in the child before exec: own network namespace, then an unprivileged `uid`
    (the caller has checked that any uid can reach the interpreter)."""
    if with_netns and os.geteuid() == 0:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET) failed")
    if drop_uid and os.geteuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
