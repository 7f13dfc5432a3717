"""scripts/supervise.py starts a process again when it dies; scripts/system_deps.sh names what is missing."""

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _supervise():
    spec = importlib.util.spec_from_file_location("supervise", ROOT / "scripts" / "supervise.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_killed_process_is_started_again(tmp_path, monkeypatch):
    supervise = _supervise()
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    child = supervise.Child("sleeper", ["sleep", "60"], dict(os.environ))
    child.start()
    first = child.process.pid
    try:
        os.kill(first, signal.SIGKILL)
        child.process.wait()
        deadline = time.monotonic() + 10
        while child.process.pid == first and time.monotonic() < deadline:
            child.check()
            time.sleep(0.1)
        assert child.process.pid != first and child.process.poll() is None
    finally:
        supervise.stop([child], grace=2)
    assert child.process.poll() is not None


def _bin_without_bwrap_or_redis(tmp_path: Path, uid: str | None = None) -> str:
    for tool in ("bash", "env", "cat", "apt-get"):
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if found:
            (tmp_path / tool).symlink_to(found)
    id_tool = tmp_path / "id"
    id_tool.write_text(f"#!/bin/sh\necho {uid if uid is not None else os.geteuid()}\n")
    id_tool.chmod(0o755)
    return str(tmp_path)


def test_as_root_with_apt_it_would_install_what_is_missing(tmp_path):
    path = _bin_without_bwrap_or_redis(tmp_path, uid="0")
    if not (tmp_path / "apt-get").exists():
        import pytest

        pytest.skip("no apt-get on this machine")
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "system_deps.sh"), "--dry-run"],
        env={"PATH": path},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0
    assert "apt-get install -y -qq --no-install-recommends bubblewrap redis-server" in done.stdout


def test_as_a_user_it_stops_with_one_line_saying_what_to_install(tmp_path):
    path = _bin_without_bwrap_or_redis(tmp_path, uid="1000")
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "system_deps.sh")], env={"PATH": path}, capture_output=True, text=True
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing: bubblewrap redis-server" in lines[0] and "apt-get install" in lines[0]
    optional = subprocess.run(
        ["bash", str(ROOT / "scripts" / "system_deps.sh"), "--optional"],
        env={"PATH": path},
        capture_output=True,
        text=True,
    )
    assert optional.returncode == 0 and "tests that need them skip" in optional.stderr


def test_a_grading_worker_runs_nicer_than_the_site_and_so_does_its_autogroup(tmp_path, monkeypatch):
    supervise = _supervise()
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    show = (
        "import os, pathlib; p = pathlib.Path('/proc/self/autogroup'); "
        "print(os.nice(0), p.read_text().split()[-1] if p.exists() else 'none')"
    )
    child = supervise.Child("nicer", [sys.executable, "-c", show], dict(os.environ), niceness=10)
    child.start()
    child.process.wait(timeout=30)
    nice, autogroup = (tmp_path / "nicer.log").read_text().split()
    assert nice == "10" and autogroup in ("10", "none")


def test_connections_that_send_nothing_do_not_stop_the_site(tmp_path, monkeypatch):
    """A browser opens connections before it has a request for them, and anyone can open many: the web server
    `make run` starts keeps answering others while such connections sit idle."""
    import socket
    import urllib.request

    supervise = _supervise()
    port = supervise.free_port(18700)
    monkeypatch.delenv("WEB_THREADS", raising=False)  # the default
    monkeypatch.setenv("WEB_PROCESSES", "2")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    with open(tmp_path / "web.log", "w") as log:
        web = subprocess.Popen(supervise.web_argv("127.0.0.1", port), cwd=ROOT, env=env, stdout=log, stderr=log)
    idle: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 60
        while True:  # until it serves the login form (one template, no query)
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5).read()
                break
            except OSError:
                assert web.poll() is None and time.monotonic() < deadline, (tmp_path / "web.log").read_text()
                time.sleep(0.2)
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]  # four per process
        time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as page:  # sync: times out
            assert page.status == 200 and b"csrfmiddlewaretoken" in page.read()
    finally:
        for connection in idle:
            connection.close()
        web.terminate()
        web.wait(timeout=30)
