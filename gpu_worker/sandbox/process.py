"""Starts learner code in the sandbox (its own cgroup, seccomp filter), drains its output with a cap,
and kills it on a deadline or when the run as a whole goes over its memory."""

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
from gpu_worker.sandbox import cgroup, isolation, seccomp
from gpu_worker.sandbox.watch import RunWatch, kill_tree

log = logging.getLogger(__name__)
CHUNK = 65536

NOFILE = 1024  # open files per sandboxed process


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
    ):
        self.limits = limits
        self.level = level or isolation.sandbox_level()
        self.file_binds = dict(file_binds or {})
        self.env = isolation.sandbox_env(env)
        self.harness_args = harness_args
        self.python_args = python_args  # instead of the harness (e.g. ["-c", "import torch"] for a floor)
        self.output = bytearray()
        self.output_truncated = False
        self.started_at = 0.0
        self.killed_for_time = False
        self._proc = None
        self._run_group = None
        self._watch = None
        self._seccomp_fd = None
        self.gpu_host = any(Path("/dev").glob("nvidia[0-9]*"))

    @property
    def deadline(self) -> float:
        return self.started_at + self.limits.wall_s

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
        # CUDA reserves tens of GB of address space at init, so on GPU hosts cap data (writable
        # private mappings) instead of the whole address space.
        memory_limit = resource.RLIMIT_DATA if self.gpu_host else resource.RLIMIT_AS
        resource.setrlimit(memory_limit, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.nproc, limits.nproc))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        files = min(NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1])  # issue 25: not the worker's 20,000
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
        if self.level != "bubblewrap":
            isolation.drop_privileges_in_child(with_netns=self.level == "rlimits+netns", drop_uid=os.geteuid() == 0)

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
        self._seccomp_fd = seccomp.program_fd() if self.level == "bubblewrap" and seccomp.supported() else None
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        passed = (to_child_r, from_child_w) + ((self._seccomp_fd,) if self._seccomp_fd is not None else ())
        self.started_at = time.monotonic()
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
            return cgroup.create(self.limits.run_memory_bytes, self.limits.run_pids)
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
        remaining = max(0.0, self.deadline - time.monotonic()) + grace_s
        try:
            self._proc.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            self.killed_for_time = True
            self.kill()
            self._proc.wait()
        self._watch.check()  # an OOM kill in the last moments still counts
        self._watch.stop()
        self.kill()  # leftovers in the group (fallback levels)
        self._remove_run_group()
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
