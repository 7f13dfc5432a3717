"""The grader's handle on one sandboxed run: load the learner's file, call its functions, read the exit."""

import os
import secrets
import signal
import time

from gpu_worker.contract import Verdict, check_verdict
from gpu_worker.contract.limits import Limits
from gpu_worker.sandbox import channel
from gpu_worker.sandbox.process import SandboxProcess

TIME_SIGNALS = {signal.SIGXCPU}


class LearnerError(Exception):
    """Learner code failed. `verdict` is the verdict it earns; `fatal` means the process is gone."""

    def __init__(self, verdict: str, message: str, fatal: bool = False):
        super().__init__(message)
        self.verdict, self.message, self.fatal = check_verdict(verdict), message, fatal


class LearnerSession:
    """`with LearnerSession(source, functions, limits) as s: s.call("f", 1, 2)`."""

    def __init__(
        self,
        source: str,
        functions: list[str],
        limits: Limits | None = None,
        file_binds: dict | None = None,
        env: dict | None = None,
        level: str | None = None,
        preload: list[str] | None = None,
        group_parent=None,
    ):
        self.source, self.functions = source, list(functions)
        self.preload = list(preload or [])  # bound modules whose prepare() runs before the learner's file
        self.limits = limits or Limits()
        self.process = SandboxProcess([], self.limits, file_binds, env, level, group_parent=group_parent)
        self.missing: list[str] = []
        self._to_child = self._from_child = None
        self.nonce = ""
        self._exit_requested = False
        self.exit = None
        self.load_s = 0.0

    def __enter__(self) -> "LearnerSession":
        self.begin()
        return self.complete()

    def begin(self) -> None:
        """Start the process and send it the file; `complete()` reads the answer. Starting several
        sessions before completing any lets their interpreters start (import torch) side by side."""
        self._to_child, self._from_child = self.process.start()
        os.set_blocking(self._to_child, False)
        try:
            channel.send(
                self._to_child,
                self.stamp(
                    {
                        "op": "load",
                        "source": self.source,
                        "functions": self.functions,
                        "python_path": self.process.python_path(),
                        "preload": self.preload,
                    }
                ),
                deadline=self.process.current_deadline,
            )
        except BaseException:
            self.close()
            raise

    def complete(self) -> "LearnerSession":
        try:
            answer, _ = self._exchange(None)
        except BaseException:
            self.close()
            raise
        missing = answer.get("missing")
        self.missing = [str(name) for name in missing] if isinstance(missing, list) else []
        self.load_s = time.monotonic() - self.process.started_at
        return self

    def stamp(self, header: dict) -> dict:
        """`header` with a fresh nonce the harness echoes: an answer without it was written by learner code
        (before the request existed, it cannot know the nonce), and is refused."""
        self.nonce = secrets.token_hex(8)
        return {**header, "nonce": self.nonce}

    @property
    def channel_fds(self) -> tuple[int, int]:
        """(write to the harness, read from the harness): for a grader that relays messages itself."""
        return self._to_child, self._from_child

    def __exit__(self, *exc) -> None:
        self.close()

    def request_exit(self) -> None:
        """Ask the harness to exit without waiting: several sessions then wind down side by side."""
        if self.exit is not None or self._to_child is None or self._exit_requested:
            return
        self._exit_requested = True
        try:
            channel.send(self._to_child, {"op": "exit"}, deadline=time.monotonic() + 0.1)
        except (OSError, channel.ChannelError):
            pass

    def close(self) -> None:
        if self.exit is not None or self._to_child is None:
            return
        self.request_exit()
        self.exit = self.process.finish(grace_s=0.5)
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass

    @property
    def stdout(self) -> str:
        return self.process.stdout_text()

    def call(self, name: str, *args, device: str = "cpu", warmup: int = 0, repeats: int = 1):
        """The learner's `name(*args)`; raises LearnerError. With repeats, returns (result, seconds list)."""
        tensors = {}
        answer, out = self._exchange(
            {
                "op": "call",
                "name": name,
                "args": channel.encode(list(args), tensors),
                "device": device,
                "warmup": warmup,
                "repeats": repeats,
            },
            tensors,
        )
        result = _decode(answer.get("result"), out)
        times = answer.get("times")
        if not isinstance(times, list) or not all(isinstance(t, (int, float)) for t in times) or not times:
            times = [float("inf")]
        return (result, times) if repeats > 1 or warmup else result

    def plugin(self, module: str, *args):
        tensors = {}
        answer, out = self._exchange(
            {"op": "plugin", "module": module, "args": channel.encode(list(args), tensors)}, tensors
        )
        return _decode(answer.get("result"), out)

    def _exchange(self, header: dict | None, tensors: dict | None = None) -> tuple[dict, dict]:
        """Send `header` (None: nothing, only read the pending answer) and read the answer."""
        if self.exit is not None:
            raise LearnerError(Verdict.RUNTIME_ERROR, "the program is no longer running", fatal=True)
        self.process.learner_turn()
        try:
            if header is not None:
                channel.send(self._to_child, self.stamp(header), tensors, deadline=self.process.current_deadline)
            answer, out = channel.receive(self._from_child, deadline=self.process.current_deadline)
            self.process.grader_turn()  # until the next request, the run waits on the grader
        except channel.ChannelTimeout:
            verdict, message = self.process.judged = self.process.time_judgement()
            self.process.killed_for_time = True
            self.process.kill()
            self.close()
            raise LearnerError(verdict, message, fatal=True) from None
        except (channel.ChannelError, OSError) as error:
            raise self.died(error) from None
        if self.process.out_of_memory:  # a child went over the run's memory: the run is over, whatever came back
            self.close()
            raise self._run_memory_error()
        return answer_or_raise(self, answer), out

    def died(self, error: Exception) -> LearnerError:
        """Why the process stopped answering, read from how it exited."""
        protocol_broken = not isinstance(error, (channel.ChannelClosed, OSError))
        if protocol_broken:  # it may still be running (e.g. blocked writing an oversized answer)
            self.process.kill()
            self.close()
            return LearnerError(Verdict.RUNTIME_ERROR, f"the program broke the harness protocol: {error}", True)
        self.close()
        exit = self.exit
        if self.process.out_of_memory:
            return self._run_memory_error()
        if exit.killed_for_time:
            verdict, message = self.process.judged or (
                Verdict.TIME_LIMIT,
                f"killed after the {self.limits.wall_s:g} s limit",
            )
            return LearnerError(verdict, message, True)
        code = exit.returncode
        if code is not None and code > 128 and self.process.level == "bubblewrap":
            code = -(code - 128)  # bwrap exits with 128 + the signal that killed the sandboxed process
        if code is not None and code < 0:
            number = -code
            if number in TIME_SIGNALS:
                return LearnerError(Verdict.TIME_LIMIT, f"CPU time limit of {self.limits.cpu_s} s exceeded", True)
            if number == signal.SIGKILL:
                return LearnerError(
                    Verdict.RUNTIME_ERROR, "the program was killed (SIGKILL): out of memory, or it killed itself", True
                )
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return LearnerError(Verdict.RUNTIME_ERROR, f"the program crashed ({name})", True)
        return LearnerError(
            Verdict.RUNTIME_ERROR,
            f"the program exited (code {exit.returncode}) before answering; do not call exit() or os._exit()",
            True,
        )

    def _run_memory_error(self) -> LearnerError:
        limit = self.limits.run_memory_bytes >> 20
        return LearnerError(
            Verdict.MEMORY_LIMIT,
            f"out of memory: the program and every process it started may use {limit} MiB together, and went over",
            fatal=True,
        )


FORGED = (
    "refused: an answer arrived that the harness did not write (learner code wrote to the grader's "
    "channel itself); return results from your function instead"
)


def answer_or_raise(session: LearnerSession, answer: dict) -> dict:
    """`answer` when the harness says ok; else the LearnerError its error earns (memory ends the run)."""
    if answer.get("nonce") != session.nonce:
        session.process.kill()
        session.close()
        raise LearnerError(Verdict.REJECTED, FORGED, fatal=True)
    if answer.get("ok") is True:
        return answer
    error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
    kind = error.get("kind")
    verdict = {"memory": Verdict.MEMORY_LIMIT, "runtime": Verdict.RUNTIME_ERROR}.get(kind, Verdict.RUNTIME_ERROR)
    message = str(error.get("message", ""))[:4000]
    if kind == "memory":  # the run stops: the next call would only thrash the host again
        session.process.kill()
        session.close()
        raise LearnerError(
            verdict, f"out of memory (limit {session.limits.memory_bytes >> 20} MiB)\n{message}", fatal=True
        )
    raise LearnerError(verdict, message)


def _decode(value, tensors: dict):
    """The learner's answer as Python values; a malformed one fails the call, not the grader."""
    try:
        return channel.decode(value, tensors)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as error:
        raise LearnerError(Verdict.RUNTIME_ERROR, f"the answer could not be read ({type(error).__name__})") from None
