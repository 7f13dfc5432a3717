"""Whose time a run's wall clock spent: the learner's code, the host's other work, or a stalled grader.

A sandboxed run is judged on what its code did, not on how busy the host was:
- its CPU: the seconds its processes ran, summed (`Limits.cpu_s` for the whole run);
- its own time: the wall clock less the seconds it was starved, that is its most-delayed thread sat runnable
  waiting for a CPU (the kernel's run delay, /proc/<pid>/task/<tid>/schedstat), and the seconds the grading
  process itself did not run (stopped with SIGSTOP, or starved: `GraderStalls`). `Limits.wall_s` bounds it,
  which catches code that sleeps or waits.
A wall-clock backstop ends any run. One that reaches it before using its CPU or its own time was starved:
the host's fault (internal_error, "send it again"), never the learner's `time_limit`.
Sandboxed code is single-threaded (OMP_NUM_THREADS=1), so the most-delayed thread is the one that answers;
a run that starts many threads competes with itself, which the CPU sum catches.
"""

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gpu_worker.contract import Verdict
from gpu_worker.sandbox.watch import descendants

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BACKSTOP_FACTOR = 4.0  # the wall-clock backstop: this many times the run's own wall limit ...
BACKSTOP_MAX_S = 200.0  # ... and never past this (the task's soft limit is 240 s), nor under the wall limit


@dataclass(frozen=True)
class Usage:
    cpu_s: float  # CPU the run's processes used (the living ones, and the children they waited for)
    waited_s: float  # seconds its most-delayed living thread was runnable but waiting for a CPU


def usage(root: int) -> Usage:
    """CPU used by `root` and every process below it, and the longest any of their threads waited for a CPU."""
    cpu = waited = 0.0
    for pid in descendants(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += sum(int(value) for value in fields[11:15]) / CLOCK_TICKS  # utime, stime, cutime, cstime
            for task in os.listdir(f"/proc/{pid}/task"):
                delay = int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[1]) / 1e9
                waited = max(waited, delay)
        except (OSError, ValueError, IndexError):
            continue
    return Usage(cpu, waited)


def backstop_s(wall_s: float) -> float:
    """Wall-clock seconds after which a run ends whatever it used."""
    return max(wall_s, min(wall_s * BACKSTOP_FACTOR, BACKSTOP_MAX_S))


class GraderStalls:
    """Seconds this (grading) process did not run: a thread that should wake every TICK_S notes each late wake.

    A stall still in progress counts too, so the first thread to run after a SIGCONT already sees it."""

    TICK_S = 0.1
    LATE_S = 0.4  # a wake this much later than asked counts whole as a stall

    def __init__(self):
        self._stalled = 0.0
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._thread = None

    def _late(self, now: float) -> float:
        late = now - self._last - self.TICK_S
        return late if late > self.LATE_S else 0.0

    def _loop(self) -> None:
        while True:
            time.sleep(self.TICK_S)
            with self._lock:
                now = time.monotonic()
                self._stalled += self._late(now)
                self._last = now

    def stalled_s(self) -> float:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():  # started on first use, in each process
                self._last = time.monotonic()
                self._thread = threading.Thread(target=self._loop, daemon=True, name="grader-stalls")
                self._thread.start()
            return self._stalled + self._late(time.monotonic())


STALLS = GraderStalls()


def judge_overrun(*, wall_s: float, cpu_limit_s: float, elapsed_s: float, used: Usage, stalled_s: float):
    """(verdict, message) for a run that gave no answer in time, from whose time the wall clock spent."""
    own_s = elapsed_s - used.waited_s - stalled_s
    if used.cpu_s >= 0.9 * cpu_limit_s:
        return (
            Verdict.TIME_LIMIT,
            f"still running your code after {used.cpu_s:.1f} s of CPU (the limit is {cpu_limit_s:g} s)",
        )
    if own_s >= 0.9 * wall_s and used.cpu_s >= 0.5 * own_s:
        return Verdict.TIME_LIMIT, f"still running your code after {wall_s:g} s ({used.cpu_s:.1f} s of CPU)"
    if own_s >= 0.9 * wall_s:
        return (
            Verdict.TIME_LIMIT,
            f"no answer within {wall_s:g} s, though your code used only {used.cpu_s:.1f} s of CPU: it was waiting "
            "(sleep, input, a lock, a pipe that nothing answers?)",
        )
    return (
        Verdict.INTERNAL_ERROR,
        f"the grading host was overloaded: in {elapsed_s:.0f} s your code got {used.cpu_s:.1f} s of CPU and "
        f"waited {used.waited_s + stalled_s:.0f} s for the machine; this run does not count against you, send it again",
    )
