"""Starts learner code in the sandbox (its own cgroup, seccomp filter), drains its output with a cap,
and kills it on a deadline or when the run as a whole goes over its memory."""

import functools
import importlib.util
import logging
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gpu_worker.contract.limits import Limits
from gpu_worker.sandbox import cgroup, clock, isolation, seccomp, uids
from gpu_worker.sandbox.watch import RunWatch, kill_tree

log = logging.getLogger(__name__)
CHUNK = 65536

NOFILE = 1024  # open files per sandboxed process
NPROC_VARIABLE = "SANDBOX_NPROC"  # the run's task bound, for the harness to set inside a user namespace
USAGE_EVERY_S = 0.5


@functools.cache
def maps_cuda() -> bool:
    """Whether a run's `import torch` maps CUDA's libraries: a GPU host, or a CUDA build of torch (PyPI's own,
    an image's) on a host without one."""
    if any(Path("/dev").glob("nvidia[0-9]*")):
        return True
    spec = importlib.util.find_spec("torch")
    folders = spec.submodule_search_locations if spec else None
    return bool(folders) and any((Path(folder) / "lib" / "libtorch_cuda.so").exists() for folder in folders)


@dataclass
class Exit:
    returncode: int | None  # negative: killed by that signal
    killed_for_time: bool
    wall_s: float

    @property
    def signal_name(self) -> str:
        if self.returncode is None or self.returncode >= 0:
            return ""
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


class SandboxUnavailable(RuntimeError):
    """This host cannot isolate learner code safely: grading fails as internal_error."""


def _world_can_reach(path: Path) -> bool:
    return all(os.stat(parent).st_mode & 0o001 for parent in path.resolve().parents)


class SandboxProcess:
    """One run of `python harness.py` under isolation; `to_child`/`from_child` are the harness channel."""

    def __init__(
        self,
        harness_args: list[str],
        limits: Limits,
        file_binds: dict[str, str] | None = None,
        env: dict | None = None,
        level: str | None = None,
        python_args: list[str] | None = None,
        group_parent: "cgroup.RunGroup | None" = None,
    ):
        self.limits = limits
        self.group_parent = group_parent  # the submission's cgroup, bounding all its sandboxes together
        self.level = level or isolation.sandbox_level()
        self.file_binds = dict(file_binds or {})
        self.env = isolation.sandbox_env(env)
        # A worker that is not root runs every sandbox as its own user, whose tasks (its web server, its
        # desktop, other runs) the kernel counts against RLIMIT_NPROC outside the run's user namespace and
        # only the run's inside it: so the harness sets the run's bound once inside (harness.bound_tasks;
        # `python_args` runs are the worker's own code, e.g. the import floor, and run without the bound).
        self._nproc_inside = self.level == "bubblewrap" and os.geteuid() != 0
        if self._nproc_inside and not python_args:
            self.env[NPROC_VARIABLE] = str(limits.nproc)
        self.harness_args = harness_args
        self.python_args = python_args  # instead of the harness (e.g. ["-c", "import torch"] for a floor)
        self.output = bytearray()
        self.output_truncated = False
        self.started_at = 0.0
        self.killed_for_time = False
        self.judged: tuple[str, str] | None = None  # (verdict, message) when it was ended at its deadline
        self._stalled_at_start = 0.0
        self._grader_s, self._grader_since = 0.0, None  # the grader's turns (see grader_turn)
        self._usage = (0.0, clock.Usage(0.0, 0.0))  # (when read, what): read at most every USAGE_EVERY_S
        self._proc = None
        self._run_group = None
        self._uid = uids.Claim(uids.NOBODY)  # the run's own uid while it runs (uids.py)
        self._watch = None
        self._seccomp_fd = None
        self.maps_cuda = maps_cuda()

    @property
    def deadline(self) -> float:
        """When the run has had `wall_s` of its own time: later by the seconds it waited for a CPU and the grader
        did not run (clock.py), and never past the backstop."""
        if self._proc is None:
            return self.started_at + self.limits.wall_s
        deadline = self._deadline(self.usage())
        if deadline <= time.monotonic():  # make sure with fresh figures: the ones read a moment ago may be late
            deadline = self._deadline(self.usage(fresh=True))
        return deadline

    def _deadline(self, used: "clock.Usage") -> float:
        if used.cpu_s >= self.limits.cpu_s:  # the run has had its CPU: its time is up now
            return time.monotonic()
        grader_s = self.grader_turns_s() + clock.STALLS.stalled_s() - self._stalled_at_start  # not the run's time
        own = self.started_at + self.limits.wall_s + grader_s
        return min(own + used.waited_s, self.started_at + grader_s + clock.backstop_s(self.limits.wall_s))

    def current_deadline(self) -> float:
        return self.deadline

    def grader_turn(self) -> None:
        """The run has answered and waits on the grader: its own clock stops (the CPU sum still counts)."""
        if self._grader_since is None:
            self._grader_since = time.monotonic()

    def learner_turn(self) -> None:
        """The grader has asked something (or waits for the run to end): the run's own clock goes on."""
        if self._grader_since is not None:
            self._grader_s += time.monotonic() - self._grader_since
            self._grader_since = None

    def grader_turns_s(self) -> float:
        """Seconds the run spent waiting on the grader, not counted in its own time."""
        ongoing = time.monotonic() - self._grader_since if self._grader_since is not None else 0.0
        return self._grader_s + ongoing

    def usage(self, fresh: bool = False) -> "clock.Usage":
        """CPU the run used and waited for (read from /proc at most every USAGE_EVERY_S unless `fresh`)."""
        read_at, known = self._usage
        now = time.monotonic()
        if self._proc is not None and (fresh or now - read_at > USAGE_EVERY_S):
            known = clock.usage(self._proc.pid)
            self._usage = (now, known)
        return known

    def time_judgement(self) -> tuple[str, str]:
        """(verdict, message) for a run that is out of time, measured before it is killed."""
        return clock.judge_overrun(
            wall_s=self.limits.wall_s,
            cpu_limit_s=self.limits.cpu_s,
            elapsed_s=time.monotonic() - self.started_at - self.grader_turns_s(),
            used=self.usage(fresh=True),
            stalled_s=clock.STALLS.stalled_s() - self._stalled_at_start,
        )

    @property
    def uid(self) -> int:
        """The uid the run's code runs as (its own while it runs, when the worker is root)."""
        return self._uid.uid

    @property
    def out_of_memory(self) -> bool:
        """Whether the run (all its processes together) went over `limits.run_memory_bytes` and was ended."""
        return self._watch is not None and self._watch.ended_for_memory()

    def _command(self, to_child: int, from_child: int) -> list[str]:
        python = isolation.PYTHON
        if self.level == "bubblewrap":
            root = isolation.MOUNT_ROOT
            binds = {str(isolation.HARNESS_DIR / name): f"{root}/{name}" for name in ("harness.py", "channel.py")}
            binds.update({str(source): f"{root}/lib/{target}" for target, source in self.file_binds.items()})
            harness = [f"{root}/harness.py", str(to_child), str(from_child), *self.harness_args]
            return isolation.bwrap_command(
                [python, "-E", "-s", "-B", "-u", *(self.python_args or harness)],
                self.limits,
                self.env,
                binds,
                self._seccomp_fd,
                uid=self._uid.uid,
            )
        harness = [str(isolation.HARNESS_DIR / "harness.py"), str(to_child), str(from_child), *self.harness_args]
        return [python, "-E", "-s", "-B", "-u", *(self.python_args or harness)]  # file_binds: see python_path()

    def python_path(self) -> list[str]:
        """Where the harness finds `file_binds` (module path -> host file) inside the sandbox."""
        if self.level == "bubblewrap":
            return [f"{isolation.MOUNT_ROOT}/lib"] if self.file_binds else []
        roots = {str(source)[: -len(target)] for target, source in self.file_binds.items()}
        return sorted(root.rstrip("/") for root in roots)

    def _preexec(self) -> None:
        if self._run_group is not None:
            self._run_group.enter()  # before exec, so bubblewrap and all it starts are inside
        limits = self.limits
        cpu = int(limits.cpu_s)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        # CUDA reserves tens of GB of address space at init, and a CUDA build of torch maps gigabytes of
        # libraries at `import torch` even with no GPU, so there cap data (writable private mappings) instead
        # of the whole address space; the run's cgroup, where there is one, bounds all it holds either way.
        memory_limit = resource.RLIMIT_DATA if self.maps_cuda else resource.RLIMIT_AS
        resource.setrlimit(memory_limit, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        if self._nproc_inside:  # bwrap must start however many tasks the worker's user runs already
            hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
            resource.setrlimit(resource.RLIMIT_NPROC, (hard, hard))
        else:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.nproc, limits.nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        files = min(NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1])  # issue 25: not the worker's 20,000
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if self.level != "bubblewrap":
            isolation.drop_privileges_in_child(
                with_netns=self.level == "rlimits+netns", drop_uid=os.geteuid() == 0, uid=self._uid.uid
            )

    def start(self) -> tuple[int, int]:
        """Start the run; returns (write fd to the harness, read fd from the harness)."""
        if self.level == "none":
            raise SandboxUnavailable(isolation.sandbox_status()["reason"])
        if self.level not in isolation.LEVELS or (self.level != "bubblewrap" and not isolation.unsafe_override()):
            raise SandboxUnavailable(f"sandbox level {self.level!r} needs {isolation.UNSAFE_OVERRIDE}=1; refusing")
        if self.level != "bubblewrap":
            log.warning(
                "UNSAFE: %s=1, so learner code runs WITHOUT namespace isolation (level %s); "
                "never do this with code you did not write",
                isolation.UNSAFE_OVERRIDE,
                self.level,
            )
            # as root we must become nobody, and nobody must reach the interpreter and the harness
            reachable = _world_can_reach(Path(sys.executable)) and _world_can_reach(isolation.HARNESS_DIR)
            if os.geteuid() == 0 and not reachable:
                raise SandboxUnavailable(
                    "without bubblewrap, learner code would run as root (the interpreter is "
                    "not reachable by uid nobody); refusing"
                )
        self._run_group = self._make_run_group()
        self._uid = uids.claim()
        self._seccomp_fd = seccomp.program_fd() if self.level == "bubblewrap" and seccomp.supported() else None
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        passed = (to_child_r, from_child_w) + ((self._seccomp_fd,) if self._seccomp_fd is not None else ())
        self.started_at = time.monotonic()
        self._stalled_at_start = clock.STALLS.stalled_s()
        try:
            self._proc = subprocess.Popen(
                self._command(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=passed,
                env=self.env,
                cwd="/tmp",
                start_new_session=True,
                preexec_fn=self._preexec,
            )
        except BaseException:
            for fd in (to_child_w, from_child_r):
                os.close(fd)
            self._remove_run_group()
            self._uid.release()
            raise
        finally:
            for fd in passed:
                os.close(fd)
        self._watch = RunWatch(self._proc.pid, self._run_group, self.limits.run_memory_bytes, self.kill)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        return to_child_w, from_child_r

    def _drain(self) -> None:
        stream = self._proc.stdout
        while chunk := stream.read1(CHUNK):
            room = self.limits.output_bytes - len(self.output)
            if room > 0:
                self.output += chunk[:room]
            if len(chunk) > room:
                self.output_truncated = True

    def poll(self) -> int | None:
        return self._proc.poll()

    def _make_run_group(self):
        try:
            return cgroup.create(self.limits.run_memory_bytes, self.limits.run_pids, parent=self.group_parent)
        except OSError as error:  # the host offered cgroups at start-up: say so, bound the run by the poller
            log.error("could not create a run cgroup (%s); this run is bounded by rlimits and a poller", error)
            return None

    def _remove_run_group(self) -> None:
        if self._run_group is not None:
            self._run_group.remove()
            self._run_group = None

    def kill(self) -> None:
        """Kill the run: its cgroup (everything it started), else its process group and process tree."""
        if self._run_group is not None:
            self._run_group.kill_all()
        if self._proc is None or self._proc.poll() is not None:
            return
        kill_tree(self._proc.pid)
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def finish(self, grace_s: float = 2.0) -> Exit:
        """Wait (at most until the deadline plus a grace) for the exit, killing when needed."""
        self.learner_turn()  # ending is the run's business: its clock runs
        while True:  # the deadline moves while the run waits for a CPU or the grader is stopped
            remaining = self.deadline + grace_s - time.monotonic()
            try:
                self._proc.wait(timeout=min(max(remaining, 0.0), 1.0))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() < self.deadline + grace_s:
                    continue
                self.judged = self.time_judgement()
                self.killed_for_time = True
                self.kill()
                self._proc.wait()
                break
        self._watch.check()  # an OOM kill in the last moments still counts
        self._watch.stop()
        self.kill()  # leftovers in the group (fallback levels)
        self._remove_run_group()
        self._uid.release()  # nothing of the run is left to run as it
        self._reader.join(timeout=5)
        self._proc.stdout.close()
        return Exit(self._proc.returncode, self.killed_for_time, time.monotonic() - self.started_at)

    def stdout_text(self) -> str:
        text = self.output.decode("utf-8", errors="replace")
        return text + ("\n... (output truncated)" if self.output_truncated else "")


def run_python(args: list[str], limits: Limits | None = None) -> tuple[Exit, str]:
    """Run `python ARGS` (no harness) under the same isolation: e.g. the floor `-c "import torch"`."""
    process = SandboxProcess([], limits or Limits(), python_args=args)
    to_child, from_child = process.start()
    os.close(to_child)
    os.close(from_child)
    return process.finish(), process.stdout_text()
