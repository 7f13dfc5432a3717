"""The wall-clock watchdog works under the solo pool, where Celery's time limits do nothing."""

import subprocess
import sys
import time

import pytest

from gpu_worker.watchdog import RunTimedOut, call_with_limit


def test_a_run_within_the_limit_returns_its_value_or_its_error():
    assert call_with_limit(lambda: 42, limit_s=5, restart_on_timeout=False) == 42
    with pytest.raises(ZeroDivisionError):
        call_with_limit(lambda: 1 / 0, limit_s=5, restart_on_timeout=False)


def test_a_stuck_run_is_given_up_after_the_limit():
    with pytest.raises(RunTimedOut, match="0 s limit|1 s limit"):
        call_with_limit(lambda: time.sleep(30), limit_s=0.5, restart_on_timeout=False)


def test_after_a_stuck_run_the_process_asks_for_its_own_warm_shutdown():
    """The worker answers first, then SIGTERM (Celery's warm shutdown) ends it; the supervisor restarts it."""
    code = (
        "import time, signal\n"
        "from gpu_worker.watchdog import RunTimedOut, call_with_limit\n"
        "signal.signal(signal.SIGTERM, lambda *a: (print('warm shutdown', flush=True), exit(0)))\n"
        "try:\n    call_with_limit(lambda: time.sleep(60), limit_s=0.3)\n"
        "except RunTimedOut:\n    print('answered', flush=True)\n"
        "time.sleep(20)\nprint('still running')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=15)
    assert done.stdout.split() == ["answered", "warm", "shutdown"]
