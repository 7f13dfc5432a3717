"""Watches one run and ends all of it the moment it goes over the run's memory.

With a run cgroup the kernel does the bounding: the watch only notices its OOM kills (on cgroup v1,
where there is no memory.oom.group, it then kills the rest of the run too). Without one it sums the
proportional set size of every process under the sandbox and kills the run past the limit.
"""

import os
import signal
import threading
from pathlib import Path

CGROUP_PERIOD_S = 0.05
POLL_PERIOD_S = 0.2


def descendants(root: int) -> list[int]:
    """`root` and every process below it (bubblewrap keeps orphans inside its pid namespace's tree)."""
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                queue += [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def pss_bytes(pid: int) -> int:
    """Proportional set size: shared pages (torch's libraries, forked copies) counted once overall."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


class RunWatch:
    """Started after the sandbox's first process; `out_of_memory` tells whether the run was ended for memory."""

    def __init__(self, root_pid: int, run_group, memory_bytes: int, kill_run):
        self.root_pid, self.run_group, self.memory_bytes, self.kill_run = root_pid, run_group, memory_bytes, kill_run
        self.out_of_memory = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        period = CGROUP_PERIOD_S if self.run_group else POLL_PERIOD_S
        while not self._stop.wait(period):
            if self.check():
                return

    def check(self) -> bool:
        """Whether the run went over its memory; ends it when so."""
        if self.out_of_memory:
            return True
        if self.run_group is not None:
            over = self.run_group.oom_kills() > 0
        else:
            over = sum(pss_bytes(pid) for pid in descendants(self.root_pid)) > self.memory_bytes
        if over:
            self.out_of_memory = True
            self.kill_run()
        return over

    def ended_for_memory(self) -> bool:
        """Cheap enough for every call: reads the cgroup's counter, or the poller's last verdict."""
        return self.check() if self.run_group is not None else self.out_of_memory

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


def kill_tree(root: int) -> None:
    for pid in reversed(descendants(root)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
