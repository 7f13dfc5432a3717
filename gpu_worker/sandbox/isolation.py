"""Builds the command line that isolates learner code: bubblewrap where it works, else rlimits (+ netns)."""
import functools
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)

LEVELS = ("bubblewrap", "rlimits+netns", "rlimits")
SANDBOX_UID = 65534  # nobody
HARNESS_DIR = Path(__file__).resolve().parent
# Where harness files are bound read-only inside the (otherwise empty) sandbox root.
MOUNT_ROOT = "/mnt/sandbox" if Path("/mnt").is_dir() and not Path("/mnt").is_symlink() else "/tmp/.sandbox"
REPO_ROOT = HARNESS_DIR.parents[1]
CLONE_NEWNET = 0x40000000


@functools.lru_cache(maxsize=None)
def _probe_bwrap() -> bool:
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return False
    try:
        probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--dev", "/dev",
                                "--proc", "/proc", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    if probe.returncode != 0:
        log.warning("bubblewrap present but unusable: %s", probe.stderr.decode(errors="replace").strip())
    return probe.returncode == 0


@functools.lru_cache(maxsize=None)
def _probe_netns() -> bool:
    unshare = shutil.which("unshare")
    if not unshare:
        return False
    try:
        return subprocess.run([unshare, "--net", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def sandbox_level() -> str:
    """The isolation this host gives learner code; GPU_WORKER_SANDBOX may force a weaker one."""
    forced = os.environ.get("GPU_WORKER_SANDBOX", "")
    if forced:
        if forced not in LEVELS:
            raise ValueError(f"GPU_WORKER_SANDBOX must be one of {LEVELS}, got {forced!r}")
        return forced
    if _probe_bwrap():
        return "bubblewrap"
    level = "rlimits+netns" if _probe_netns() else "rlimits"
    log.warning("bubblewrap unavailable: learner code runs with %s only", level)
    return level


def sandbox_env(extra: dict | None = None) -> dict:
    """The whole environment learner code gets: what Python and torch need, no secrets."""
    env = {
        "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "XDG_CACHE_HOME": "/tmp/.cache", "TRITON_CACHE_DIR": "/tmp/.triton", "MPLCONFIGDIR": "/tmp/.mpl",
        "TORCHINDUCTOR_CACHE_DIR": "/tmp/.inductor",
    }
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        env["CUDA_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]
    env.update(extra or {})
    return env


SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")


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
    return args + ["--ro-bind-try", "/sys", "/sys"]


def _traversable_parents(path: Path) -> list[str]:
    """Make the dirs above a bind point traversable by uid nobody (bwrap would create them 0700)."""
    args = []
    for parent in reversed(path.parents):
        if str(parent) not in ("/", "/tmp", "/var", "/var/tmp", "/dev", "/dev/shm"):
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def bwrap_command(argv: list[str], limits, env: dict, file_binds: dict[str, str]) -> list[str]:
    """bwrap argv: an empty root with the system dirs and Python read-only, private /tmp, no network, uid nobody."""
    cmd = ["bwrap", *_system_binds()]
    cmd += ["--dev", "/dev", "--proc", "/proc",
            "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
            "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm",
            "--perms", "1777", "--size", str(16 * 1024 * 1024), "--tmpfs", "/var/tmp"]
    # Python itself (the base install and the venv), bound after /tmp so a checkout in /tmp works too.
    for needed in sorted({Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}, key=lambda p: len(p.parts)):
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
    cmd += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv", "--chdir", "/tmp", "--hostname", "localhost"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    if os.geteuid() == 0:  # root: drop to a real unprivileged uid so RLIMIT_NPROC and file modes apply
        cmd += ["--cap-add", "CAP_SETUID,CAP_SETGID", "--", "setpriv", f"--reuid={SANDBOX_UID}",
                f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                "--no-new-privs", "--"]
    else:
        cmd += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--"]
    return cmd + argv


def drop_privileges_in_child(with_netns: bool, drop_uid: bool) -> None:
    """Fallback isolation, run in the child before exec: own network namespace, then uid nobody
    (the caller has checked that nobody can reach the interpreter)."""
    if with_netns and os.geteuid() == 0:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET) failed")
    if drop_uid and os.geteuid() == 0:
        os.setgroups([])
        os.setgid(SANDBOX_UID)
        os.setuid(SANDBOX_UID)


def sandbox_status() -> dict:
    """{"ok", "level", "reason"}: whether this host can run learner code in namespaces (bubblewrap)."""
    try:
        level = sandbox_level()
    except ValueError as error:
        return {"ok": False, "level": "unknown", "reason": str(error)}
    if level == "bubblewrap":
        return {"ok": True, "level": level, "reason": ""}
    return {"ok": False, "level": level,
            "reason": "bubblewrap is missing or cannot create namespaces here, so learner code cannot be isolated"}
