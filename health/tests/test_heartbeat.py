"""Worker heartbeats: the Django-free sender on a real (in-memory) broker, and the web task that records them."""

import subprocess
import sys
import time

import pytest
from django.utils import timezone

from gpu_worker import heartbeat
from gpu_worker.contract import wire
from health.models import WorkerHeartbeat
from health.tasks import worker_heartbeat
from testing.workers import client_app, purge_queues


def test_heartbeat_module_stays_django_free():
    # As on a GPU host without Django: kombu imports django when it can, so make it unimportable.
    code = "import sys; sys.modules['django'] = None; import gpu_worker.heartbeat; print('ok')"
    env = {"PATH": "/usr/bin:/bin", "CELERY_BROKER_URL": "memory://"}  # no DJANGO_SETTINGS_MODULE, as on a GPU host
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr[-2000:]


def test_sender_beats_at_once_and_again_on_the_default_queue():
    """On the session's real Redis, read back from the web queue."""
    app = client_app()
    purge_queues(app, "default")
    stop = heartbeat.start_heartbeat(app, node="celery@test-node", interval_s=0.2)
    beats = []
    try:
        with app.connection_for_write() as connection:
            queue = connection.SimpleQueue("default")
            deadline = time.monotonic() + 20
            while len(beats) < 2 and time.monotonic() < deadline:
                message = queue.get(timeout=10)
                message.ack()
                _args, kwargs, _embed = message.payload
                if (
                    message.headers["task"] == wire.WORKER_HEARTBEAT
                    and kwargs["info"].get("node") == "celery@test-node"
                ):
                    beats.append(kwargs["info"])
            queue.close()
    finally:
        stop.set()
    assert len(beats) == 2
    assert beats[0]["host"] and "torch" in beats[0] and "cuda" in beats[0]


@pytest.mark.django_db
def test_web_task_upserts_one_row_per_worker():
    info = {"host": "gpu-1", "node": "celery@gpu-1", "torch": "2.13.0", "cuda": "NVIDIA H200"}
    worker_heartbeat.apply(kwargs={"info": info})
    first = WorkerHeartbeat.objects.get()
    worker_heartbeat.apply(kwargs={"info": {**info, "torch": "2.14.0"}})
    worker_heartbeat.apply(kwargs={"info": {"host": "cpu-box"}})
    assert WorkerHeartbeat.objects.count() == 2
    beat = WorkerHeartbeat.objects.get(name="celery@gpu-1")
    assert beat.info["torch"] == "2.14.0" and beat.last_seen >= first.last_seen
    assert WorkerHeartbeat.objects.get(name="cpu-box").last_seen <= timezone.now()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_beats_and_the_dashboard_shows_it(tmp_path, client, instructor):
    """A real worker on the session's broker: its first beat reaches the default queue and the page."""
    from testing.workers import running_worker, test_database_url

    purge_queues(client_app(), "gpu", "default")
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": test_database_url(),
        "WORKER_HEARTBEAT_S": "1",
    }
    with running_worker("config.celery_local", "gpu,default", tmp_path, env=env, name="beat"):
        deadline = time.monotonic() + 60
        while not WorkerHeartbeat.objects.exists() and time.monotonic() < deadline:
            time.sleep(0.5)
    purge_queues(client_app(), "default")  # the last beats, sent after the worker stopped consuming
    beat = WorkerHeartbeat.objects.get()
    assert beat.name.startswith("beat-") and beat.info["torch"] and beat.host
    client.force_login(instructor)
    page = client.get("/instructor/queue/").content.decode()
    assert beat.name in page and beat.info["torch"] in page and "online" in page
