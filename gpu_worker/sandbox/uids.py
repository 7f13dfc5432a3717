"""A uid per concurrent run, as Jobe keeps a pool of users: RLIMIT_NPROC and the kernel's per-user counts
then bound one run, never every run on the host (another checkout's included).

Only a worker running as root can give a run a uid of its own (bubblewrap then drops to it with setpriv);
an unprivileged worker maps uid nobody in a user namespace, where the real uid stays the worker's.
A uid is held with flock on a file in LOCK_DIR, a folder only root can write, shared by every worker on
the host; the lock goes with the process that held it, so a crashed worker frees its uids.
"""

import fcntl
import logging
import os
import random
import stat
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)
NOBODY = 65534
POOL_BASE = int(os.environ.get("GPU_WORKER_UID_BASE", "62000"))  # the pool: uids no account on the host uses
POOL_SIZE = int(os.environ.get("GPU_WORKER_UID_POOL", "256"))
LOCK_DIR = Path(os.environ.get("GPU_WORKER_UID_LOCKS", "/run/gpu-worker-uids"))


@dataclass
class Claim:
    uid: int
    fd: int | None = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the file drops its flock
            self.fd = None


def _lock_dir() -> Path | None:
    """LOCK_DIR, made if missing; None unless it is a root-owned folder nobody else can write."""
    try:
        LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = LOCK_DIR.lstat()
    except OSError as error:
        log.error("uid pool: cannot use %s (%s); runs share uid %d", LOCK_DIR, error, NOBODY)
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        log.error("uid pool: %s is not a folder only root can write; runs share uid %d", LOCK_DIR, NOBODY)
        return None
    return LOCK_DIR


def claim() -> Claim:
    """A uid no other run on this host holds (nobody when the worker is not root or the pool is full)."""
    folder = _lock_dir() if os.geteuid() == 0 else None
    if folder is None:
        return Claim(NOBODY)
    start = random.randrange(POOL_SIZE)  # spread claims, so workers rarely try the same files
    for offset in range(POOL_SIZE):
        uid = POOL_BASE + (start + offset) % POOL_SIZE
        fd = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return Claim(uid, fd)
    log.error("uid pool: all %d uids from %d are in use; this run shares uid %d", POOL_SIZE, POOL_BASE, NOBODY)
    return Claim(NOBODY)
