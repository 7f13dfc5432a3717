"""Pytest plugin: tests marked `sandbox` run learner code, so they need bubblewrap.

Where this host cannot isolate code (gpu_worker.sandbox.isolation.sandbox_status() is not ok),
they skip with the reason and what to install, unless REQUIRE_SERVICES=1, under which they fail.
"""

import os

import pytest

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def sandbox_missing_reason() -> str:
    """Empty when learner code can run here, else why not (and how to fix it)."""
    from gpu_worker.sandbox.isolation import sandbox_status

    status = sandbox_status()
    return "" if status["ok"] else f"no sandbox for learner code: {status['reason']}"


def pytest_configure(config):
    config.addinivalue_line("markers", "sandbox: runs learner code in the bubblewrap sandbox (skips without it)")


def pytest_report_header(config):
    from gpu_worker.sandbox.isolation import sandbox_status

    status = sandbox_status()
    state = status["level"] if status["ok"] else f"missing ({status['reason']}); sandbox tests skip"
    return [f"sandbox: {state}, run bound {status['run_bound']}, seccomp {status['seccomp']}"]


@pytest.hookimpl(tryfirst=True)  # before fixtures start workers for a test that cannot run
def pytest_runtest_setup(item):
    if item.get_closest_marker("sandbox") is None:
        return
    reason = sandbox_missing_reason()
    if reason and REQUIRE_SERVICES:
        pytest.fail(f"REQUIRE_SERVICES=1 but {reason}", pytrace=False)
    if reason:
        pytest.skip(reason)
