"""Start real Celery worker processes for tests, and stop them (and their children) after."""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from celery import Celery

from gpu_worker.contract import wire

ROOT = Path(__file__).resolve().parent.parent


def client_app(broker_url: str | None = None, result_backend: str | None = None) -> Celery:
    """A bare Celery client on the given broker, configured like the worker's own app."""
    broker_url = broker_url or os.environ["CELERY_BROKER_URL"]
    app = Celery("test-client", broker=broker_url)
    app.conf.update(
        result_backend=result_backend or os.environ["CELERY_RESULT_BACKEND"],
        broker_transport_options=dict(wire.BROKER_TRANSPORT_OPTIONS),
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
    )
    return app


def wait_for_ping(app: Celery, process: subprocess.Popen, log: Path, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"worker exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            return app.send_task(wire.PING, queue=wire.GRADING_QUEUE, expires=10).get(timeout=3)
        except Exception:
            continue
    raise RuntimeError(f"worker did not answer a ping in {timeout} s:\n{log.read_text()[-3000:]}")


@contextmanager
def running_worker(
    app_module: str, queues: str, log_dir: Path, env: dict | None = None, name: str = "test", wait: bool = True
):
    """Run `celery -A app_module worker -Q queues --pool=solo` until the block ends."""
    log = Path(log_dir) / f"worker-{name}.log"
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            app_module,
            "worker",
            "-Q",
            queues,
            "--pool=solo",
            "-n",
            f"{name}-{os.getpid()}@%h",
            "-l",
            "info",
            "--without-mingle",
            "--without-gossip",
        ],
        cwd=ROOT,
        env=full_env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        if wait:
            app = client_app(full_env.get("CELERY_BROKER_URL"), full_env.get("CELERY_RESULT_BACKEND"))
            wait_for_ping(app, process, log)
        yield process
    finally:
        stop_process_group(process)


@contextmanager
def running_web_worker(log_dir: Path, env: dict | None = None):
    """The web side's worker (`celery -A config`, queue `default`) on the test database: it records
    results, run starts and heartbeats. Django must be set up (the test database exists)."""
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_database_url(), **(env or {})}
    with running_worker("config", "default", log_dir, env=env, name="web", wait=False) as process:
        yield process


def wait_for_beats(*queues: str, timeout: float = 90) -> list:
    """The recorded heartbeats once workers serving every one of `queues` have beaten."""
    from health.models import WorkerHeartbeat

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        beats = list(WorkerHeartbeat.objects.all())
        served = {queue for beat in beats for queue in beat.info.get("queues") or []}
        if served >= set(queues):
            return beats
        time.sleep(0.3)
    raise RuntimeError(f"no heartbeat from workers on {queues} within {timeout} s")


def stop_process_group(process: subprocess.Popen, grace: float = 10) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=5)


def purge_queues(app: Celery, *queues: str) -> None:
    with app.connection_for_write() as conn:
        channel = conn.default_channel
        for queue in queues:
            try:
                channel.queue_purge(queue)
            except Exception:
                pass


def test_database_url() -> str:
    """A DATABASE_URL for a worker process that must share the test database."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return (
        f"postgres://{db['USER'] or ''}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


test_database_url.__test__ = False  # not a test, despite its name


def wait_until_finished(row, finished: str, timeout: float):
    """Reload a model `row` (a submission, an experiment) until its boolean property `finished` is true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row.refresh_from_db()
        if getattr(row, finished):
            return row
        time.sleep(0.2)
    raise AssertionError(f"{type(row).__name__} {row.pk} still {row.status} after {timeout} s")


def wait_for(condition, timeout: float, what: str, every: float = 0.2):
    """`condition()`'s first truthy value within `timeout` seconds, checked every `every`; else an
    AssertionError naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s: {what}")
