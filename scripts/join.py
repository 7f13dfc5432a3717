"""A second grading host: `python scripts/join.py BROKER_URL` (what `make join` and scripts/join.sh run).

Starts GRADING_WORKERS grading workers (the same count rule, command and niceness as `make run`'s, see
scripts/supervise.py) against the first site's broker, restarts any that exits, and nothing else: no
Redis, no web server, no beat. Runs, heartbeats and results all travel through that broker, so the first
site sees this host's workers on /status/ and sends them runs as soon as they are up. Ctrl-C stops them.
"""

import os
import signal
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import supervise


def broker_problem(url: str) -> str | None:
    """Why this broker URL cannot work, in one line; None when its Redis answers a PING with the password."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        return f"BROKER_URL must look like redis://:password@first-host:port/0, not {url!r}"
    try:
        port = parts.port or 6379
    except ValueError:
        return f"BROKER_URL has no valid port: {url!r}"
    if parts.scheme == "rediss":
        return None  # TLS: celery checks it itself, with its own retries
    password = urllib.parse.unquote(parts.password or "")
    if not supervise.redis_answers(port, password, host=parts.hostname):
        return (
            f"the broker at {parts.hostname}:{port} does not answer (or refuses the password); on the first "
            "site, start it with BROKER_BIND set (make run) or publish its Redis (docker), and check the firewall"
        )
    return None


def main(argv: list[str]) -> None:
    url = (argv[0] if argv else "") or os.environ.get("BROKER_URL", "")
    if not url:
        raise SystemExit("!! usage: make join BROKER_URL=redis://:password@first-host:port/0")
    problem = broker_problem(url)
    if problem:
        raise SystemExit(f"!! {problem}")
    supervise.VAR.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url, "PYTHONUNBUFFERED": "1"}
    children = supervise.grading_children(env, os.environ.get("WORKER_LOG_LEVEL", "warning"), prefix="joined")
    stop = supervise.StopFlag()
    for child in children:
        child.start()
    where = urllib.parse.urlsplit(url)
    print(
        f"==> grading for the site whose broker is {where.hostname}:{where.port or 6379}: {len(children)} "
        f"worker(s) (GRADING_WORKERS), logs under {supervise.VAR}/joined-worker-*.log. Press Ctrl-C to stop.",
        flush=True,
    )
    while not stop.set:
        for child in children:
            child.check()
        time.sleep(0.5)
    print("\n==> stopping the grading workers", flush=True)
    for child in children:
        child.signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    for child in children:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except Exception:
            child.signal(signal.SIGKILL)
            child.process.wait()
        child.kill_leftovers()


if __name__ == "__main__":
    main(sys.argv[1:])
