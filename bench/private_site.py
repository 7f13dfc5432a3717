"""A private `make run` for a benchmark: its own var/ folder, port, Redis and workers, stopped afterwards.

`embedded`: make run's own settings (config.settings.dev, SQLite under var/, the private Redis).
`postgres`: the same with DATABASE_URL on a fresh database made on the given PostgreSQL server and
dropped afterwards. Set up as scripts/run.sh does (migrate, load the course and the labs), then
scripts/supervise.py runs it; sign-ups are not throttled (a benchmark's class signs up from one address).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(Path(sys.executable))


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return response.status == 200
    except Exception:
        return False


@contextmanager
def _database(server_url: str):
    """A fresh database on the PostgreSQL at `server_url`; its URL, dropped when the block ends."""
    import psycopg

    name = f"bench_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    parts = urllib.parse.urlsplit(server_url)
    try:
        yield urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def private_site(kind: str, postgres_url: str = "", log=print):
    """The URL of a running private site of `kind` ("embedded" or "postgres") until the block ends."""
    folder = Path(tempfile.mkdtemp(prefix=f"load-{kind}-"))
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL", "REDIS_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.dev",
        VAR_DIR=str(folder),
        PORT=str(port),
        PYTHONUNBUFFERED="1",
        SIGNUP_PER_ADDRESS_HOUR="1000000",
        LABS_HOURLY_CAP="1000000",
    )
    with _database(postgres_url) if kind == "postgres" else _nothing() as database_url:
        if database_url:
            env["DATABASE_URL"] = database_url
        log(f"==> {kind}: setting up a private site under {folder} (migrate, course, labs)")
        for command in (["migrate", "--noinput", "-v0"], ["load_course"], ["load_labs"]):
            done = subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{kind}: manage.py {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        supervisor = subprocess.Popen(
            [PYTHON, str(ROOT / "scripts" / "supervise.py")],
            cwd=ROOT,
            env=env,
            stdout=(folder / "supervise.out").open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 240
            while not (_answers(f"{url}/accounts/login/") and _answers(f"{url}/healthz")):
                if supervisor.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{kind}: the site did not come up; see {folder}/*.log")
                time.sleep(1)
            log(f"==> {kind}: up at {url} (healthz ok)")
            yield url
        finally:
            supervisor.send_signal(signal.SIGTERM)  # it stops its children in order, Redis last
            try:
                supervisor.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(supervisor.pid, signal.SIGKILL)
                supervisor.wait()
            shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _nothing():
    yield ""
