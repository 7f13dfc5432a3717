"""One cgroup per run, so the kernel caps the memory and process count of everything a submission starts.

cgroup v2 where the worker's own cgroup offers the memory and pids controllers (a container with its
own cgroup namespace, or a systemd unit with Delegate=yes and GPU_WORKER_CGROUP_DELEGATED=1); else the
v1 memory and pids hierarchies when they are writable. Each run gets a child of the worker's cgroup: created before the run, entered
by the sandbox's first process before it execs bubblewrap, emptied and removed after it.
"""

import functools
import logging
import os
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)
RUN_PREFIX = "gpu-run-"
OWNER = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"  # in every run cgroup's name: whose they are (tests look at theirs)
STALE_S = 60.0  # an empty run cgroup this old belongs to no live run
WORKER_LEAF = "gpu-worker"  # v2 only: where the worker's own processes move so runs may get controllers
# v2: the worker rearranges its cgroup only where it owns the tree: its cgroup namespace's root (a container),
# or where the operator says it was delegated (systemd Delegate=yes) by setting this to 1.
DELEGATED_ENV = "GPU_WORKER_CGROUP_DELEGATED"


@dataclass(frozen=True)
class Hierarchy:
    version: int
    memory_parent: Path
    pids_parent: Path


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(cgroup path at the mount's root, mount point, fstype, super options) of every cgroup mount."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fstype, _source, options = (right.split() + ["", "", ""])[:3]
        if fstype in ("cgroup", "cgroup2"):
            fields = left.split()
            found.append((fields[3], fields[4], fstype, set(options.split(","))))
    return found


def _folder(mount_root: str, mount_point: str, own: str) -> Path | None:
    """The folder of cgroup `own` under a mount that shows the tree from `mount_root` down."""
    relative = os.path.relpath(own, mount_root)
    if relative.startswith(".."):
        return None
    return Path(mount_point) / relative if relative != "." else Path(mount_point)


def _own_paths() -> dict[str, str]:
    """The worker's cgroup per v1 controller, and under "" its v2 cgroup."""
    paths = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _writable(parent: Path) -> bool:
    probe = parent / f"{RUN_PREFIX}probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def _v2_parent(base: Path, own: str) -> Path | None:
    try:
        controllers = set((base / "cgroup.controllers").read_text().split())
    except OSError:
        return None
    if not {"memory", "pids"} <= controllers:
        return None
    enabled = set((base / "cgroup.subtree_control").read_text().split())
    if not {"memory", "pids"} <= enabled:
        if own != "/" and os.environ.get(DELEGATED_ENV) != "1":
            return None  # a cgroup systemd (or someone) manages: not ours to rearrange
        try:
            # a cgroup with processes in it cannot hand controllers to children: move ours to a leaf first
            leaf = base / WORKER_LEAF
            leaf.mkdir(exist_ok=True)
            for pid in (base / "cgroup.procs").read_text().split():
                try:
                    (leaf / "cgroup.procs").write_text(pid)
                except ProcessLookupError:
                    pass
            (base / "cgroup.subtree_control").write_text("+memory +pids")
        except OSError as error:
            log.info("cgroup v2 at %s is not delegated to the worker: %s", base, error)
            return None
    return base if _writable(base) else None


def hierarchy() -> Hierarchy | None:
    """Where run cgroups go on this host, or None (then runs are bounded by rlimits and a poller).
    GPU_WORKER_NO_CGROUPS=1 turns them off (for tests of the fallback, or a host that misbehaves)."""
    if os.environ.get("GPU_WORKER_NO_CGROUPS") == "1":
        return None
    return _find_hierarchy()


@functools.cache
def _find_hierarchy() -> Hierarchy | None:
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError:
        return None
    for root, mount, fstype, _ in mounts:
        base = _folder(root, mount, own[""]) if fstype == "cgroup2" and "" in own else None
        parent = _v2_parent(base, own[""]) if base else None
        if parent:
            return Hierarchy(2, parent, parent)
    v1 = {}
    for root, mount, fstype, options in mounts:
        for controller in ("memory", "pids"):
            if fstype == "cgroup" and controller in options and controller in own:
                folder = _folder(root, mount, own[controller])
                if folder:
                    v1[controller] = folder
    if len(v1) == 2 and all(_writable(parent) for parent in v1.values()):
        return Hierarchy(1, v1["memory"], v1["pids"])
    return None


class RunGroup:
    """The cgroup(s) of one run. `enter()` runs in the child between fork and exec."""

    def __init__(self, hierarchy_: Hierarchy, memory_bytes: int, max_pids: int, parent: "RunGroup | None" = None):
        name = f"{RUN_PREFIX}{OWNER}-{uuid.uuid4().hex[:16]}"
        self.version = hierarchy_.version
        self.parent = parent  # the submission's group: its caps bound every sandbox of the submission together
        self.memory_dir = (parent.memory_dir if parent else hierarchy_.memory_parent) / name
        self.pids_dir = (parent.pids_dir if parent else hierarchy_.pids_parent) / name
        self.dirs = [self.memory_dir] if self.pids_dir == self.memory_dir else [self.memory_dir, self.pids_dir]
        self._events_fd, self._events_lock = None, threading.Lock()  # kept open: read at every call of a run
        try:
            for folder in self.dirs:
                folder.mkdir()
            self._set_limits(memory_bytes, max_pids)
        except OSError:
            self.remove()
            raise
        self._procs_files = [str(folder / "cgroup.procs") for folder in self.dirs]

    def child(self, memory_bytes: int, max_pids: int) -> "RunGroup":
        """A group inside this one (one sandbox of a submission): its own caps, and this group's over all."""
        if self.version == 2:
            (self.memory_dir / "cgroup.subtree_control").write_text("+memory +pids")
        else:
            _write_if_present(self.memory_dir / "memory.use_hierarchy", "1")
        return RunGroup(Hierarchy(self.version, self.memory_dir, self.pids_dir), memory_bytes, max_pids, self)

    def _set_limits(self, memory_bytes: int, max_pids: int) -> None:
        if self.version == 2:
            (self.memory_dir / "memory.max").write_text(str(memory_bytes))
            _write_if_present(self.memory_dir / "memory.swap.max", "0")
            _write_if_present(self.memory_dir / "memory.oom.group", "1")  # one OOM kill ends the whole run
        else:
            (self.memory_dir / "memory.limit_in_bytes").write_text(str(memory_bytes))
            _write_if_present(self.memory_dir / "memory.memsw.limit_in_bytes", str(memory_bytes))  # no swap
        (self.pids_dir / "pids.max").write_text(str(max_pids))

    def enter(self) -> None:
        """Move the calling process (the child, before exec) into the run's cgroups. Async-signal-light:
        only os.open/os.write, as this runs between fork and exec."""
        for path in self._procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def oom_kills(self) -> int:
        """How many processes of the run the kernel killed for going over the run's memory. The counter's file
        stays open and is read again from its start (the kernel writes it afresh): a fifteenth of the cost of
        opening it, which matters at a round trip per scheduler step."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        above = self.parent.oom_kills() if self.parent else 0  # the submission's cap, hit by any of its sandboxes
        with self._events_lock:
            try:
                if self._events_fd is None:
                    self._events_fd = os.open(self.memory_dir / name, os.O_RDONLY | os.O_CLOEXEC)
                text = os.pread(self._events_fd, 4096, 0).decode()
            except OSError:
                return above
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value) + above
        return above

    def pids(self) -> list[int]:
        """The processes in the run's cgroups and in any group inside them (a submission's sandboxes)."""
        found = set()
        for folder in self.dirs:
            for procs in [folder / "cgroup.procs", *folder.glob(f"{RUN_PREFIX}*/cgroup.procs")]:
                try:
                    found.update(int(pid) for pid in procs.read_text().split())
                except OSError:
                    pass
        return sorted(found)

    def kill_all(self) -> None:
        """SIGKILL everything in the run, including processes that left the process group or pid tree."""
        if self.version == 2 and _write_if_present(self.memory_dir / "cgroup.kill", "1"):
            return
        for _ in range(100):  # a fork between reading and killing: go round again
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and remove the cgroups (inner ones first); a cgroup empties a moment after its
        last exit."""
        self.kill_all()
        with self._events_lock:
            if self._events_fd is not None:
                os.close(self._events_fd)
                self._events_fd = None
        for folder in self.dirs:
            for inner in sorted(folder.glob(f"{RUN_PREFIX}*")):  # a sandbox's group its process left behind
                _remove_folder(inner, self.kill_all)
            _remove_folder(folder, self.kill_all)


def _remove_folder(folder: Path, kill) -> None:
    for attempt in range(200):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if attempt % 20 == 19:
                kill()
            time.sleep(0.01)
    log.error("could not remove run cgroup %s", folder)


def _write_if_present(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except FileNotFoundError:
        return False


def create(memory_bytes: int, max_pids: int, parent: RunGroup | None = None) -> RunGroup | None:
    """A fresh run cgroup with these caps (inside `parent`, a submission's group, when given), or None where
    this host offers none."""
    if parent is not None:
        return parent.child(memory_bytes, max_pids)
    found = hierarchy()
    if found is None:
        return None
    _sweep(found)
    return RunGroup(found, memory_bytes, max_pids)


_last_sweep = [0.0]


def _sweep(found: Hierarchy) -> None:
    """Remove run cgroups a killed worker left behind: empty (bubblewrap dies with its worker) and older
    than any run's start-up, so a live run's cgroup between creation and entry is never touched."""
    now = time.time()
    if now - _last_sweep[0] < STALE_S:
        return
    _last_sweep[0] = now
    for parent in {found.memory_parent, found.pids_parent}:
        for folder in parent.glob(f"{RUN_PREFIX}*"):
            try:
                if now - folder.stat().st_mtime > STALE_S and not (folder / "cgroup.procs").read_text().strip():
                    for inner in folder.glob(f"{RUN_PREFIX}*"):  # a submission's sandboxes, as empty
                        if not (inner / "cgroup.procs").read_text().strip():
                            inner.rmdir()
                    folder.rmdir()
                    log.warning("removed run cgroup %s left by a worker that died mid-run", folder)
            except OSError:
                pass


def describe() -> str:
    """How a run is bounded as a whole: "cgroup" (by the kernel) or "rlimit" (per process, plus the poller)."""
    return "rlimit" if hierarchy() is None else "cgroup"
