"""A wall-clock limit for one grading run that works under the solo pool.

Celery's soft and hard time limits need a pool with child processes; under `--pool=solo` they do
nothing, so a grader stuck in our own code would hold the worker forever. Here the run goes on a
thread; past the limit the task gives up with an internal_error result (the learner sees a verdict),
then asks its own worker to shut down warmly, so the supervisor (scripts/supervise.py, or the
container's restart policy) starts a fresh process without the stuck thread.
"""

import logging
import os
import signal
import threading

log = logging.getLogger(__name__)


class RunTimedOut(Exception):
    """The run did not finish within the limit; the worker restarts itself after answering."""


def call_with_limit(fn, *, limit_s: float, restart_on_timeout: bool = True):
    """fn() on a daemon thread; its value, its exception, or RunTimedOut after `limit_s` seconds."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as error:  # handed to the caller below, on its own thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name="graded-run", daemon=True)
    thread.start()
    thread.join(limit_s)
    if thread.is_alive():
        log.error("a run passed the %.0f s watchdog; this worker restarts once it has answered", limit_s)
        if restart_on_timeout:
            # SIGTERM is Celery's warm shutdown: the current task's result goes out first.
            threading.Timer(1.0, os.kill, args=(os.getpid(), signal.SIGTERM)).start()
        raise RunTimedOut(f"the run passed the worker's {limit_s:.0f} s limit")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
