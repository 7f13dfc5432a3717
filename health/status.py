"""Health from what is already recorded: the database, the broker, and the workers' heartbeats.

A check sends no task and waits on no worker: workers beat every few seconds (gpu_worker/heartbeat.py,
`wire.HEARTBEAT_INTERVAL_S`) and the web worker records each beat."""

from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu import Connection

from common.readcache import remember
from gpu_worker.contract import wire
from health.models import WorkerHeartbeat

PARTS = ("database", "broker", "web_worker", "gpu_worker", "labs")


def _check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"ok": True, "vendor": connection.vendor}
    except Exception as error:
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def _check_broker() -> dict:
    transport = settings.CELERY_BROKER_URL.split("://", 1)[0]
    try:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=1) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=1)
        return {"ok": True, "transport": transport}
    except Exception as error:
        return {"ok": False, "transport": transport, "error": f"{type(error).__name__}: {error}"}


def fresh_beats() -> list[dict]:
    """The beats of every worker alive now (one that beat within `wire.WORKER_FRESH_S`)."""
    since = timezone.now() - timedelta(seconds=wire.WORKER_FRESH_S)
    return [
        {**beat.info, "name": beat.name, "age_s": round((timezone.now() - beat.last_seen).total_seconds(), 1)}
        for beat in WorkerHeartbeat.objects.filter(last_seen__gte=since)
    ]


def _serving(beats: list[dict], queue: str) -> dict:
    serving = [beat for beat in beats if queue in (beat.get("queues") or [wire.GRADING_QUEUE])]
    if not serving:
        return {
            "ok": False,
            "error": f"no worker on queue {queue!r} sent a heartbeat in the last {wire.WORKER_FRESH_S:g} s",
            "workers": [],
        }
    return {"ok": True, "workers": serving}


def _redelivery_problem(beats: list[dict]) -> str | None:
    """Why a live run could be delivered twice: an app on the broker that redelivers after another time than
    this site's, or before some worker's hard limit (kombu restores with the restoring consumer's timeout)."""
    ours = (current_app.conf.broker_transport_options or {}).get("visibility_timeout")
    clocks = [(beat["name"], beat.get("visibility_timeout_s"), beat.get("hard_time_limit_s")) for beat in beats]
    for name, timeout, _ in clocks:
        if timeout is not None and timeout != ours:
            return f"worker {name} redelivers unacknowledged runs after {timeout} s, this site after {ours} s"
    for name, _, hard_limit in clocks:
        if hard_limit is not None and ours is not None and hard_limit >= ours:
            return f"worker {name} grades for up to {hard_limit} s, but runs are redelivered after {ours} s"
    return None


def _labs(gpu: dict) -> dict:
    if not gpu["ok"]:
        return {"ok": False, "error": "no grading worker is up"}
    reasons = set()
    for beat in gpu["workers"]:
        sandbox, device = beat.get("sandbox_status") or {}, beat.get("device_status") or {}
        if not sandbox.get("ok"):
            reasons.add("cannot isolate learner code: " + (sandbox.get("reason") or "the worker did not say"))
        elif device.get("gpu_host") and not device.get("cuda_usable"):
            reasons.add("a GPU host without usable CUDA: " + (device.get("reason") or "the worker did not say"))
        else:
            return {"ok": True}
    return {"ok": False, "error": "no grading worker can grade: " + "; ".join(sorted(reasons))}


def collect_health() -> dict:
    database = _check_database()
    broker = _check_broker()
    beats = fresh_beats() if database["ok"] else []
    web, gpu = _serving(beats, wire.WEB_QUEUE), _serving(beats, wire.GRADING_QUEUE)
    twice = _redelivery_problem(beats)
    if broker["ok"] and twice:
        broker = {**broker, "ok": False, "error": f"a run could be graded twice: {twice}"}
    checks = {"database": database, "broker": broker, "web_worker": web, "gpu_worker": gpu, "labs": _labs(gpu)}
    return {"ok": all(check["ok"] for check in checks.values()), **checks}


GRADING_STATUS_S = 2  # how long lab pages share one read of the heartbeats


def grading_status() -> dict:
    """{"ok", "reason"} for the lab page: would a run sent now be graded? (Heartbeats only: one read, which
    the lab pages of the next GRADING_STATUS_S seconds share.)"""
    return remember("grading-status", _grading_status, timeout=GRADING_STATUS_S)


def _grading_status() -> dict:
    try:
        beats = fresh_beats()
    except Exception as error:  # the lab page must render even when health cannot be read
        return {"ok": False, "reason": type(error).__name__}
    web, gpu = _serving(beats, wire.WEB_QUEUE), _serving(beats, wire.GRADING_QUEUE)
    for part in (web, gpu, _labs(gpu)):
        if not part["ok"]:
            return {"ok": False, "reason": part["error"]}
    return {"ok": True, "reason": ""}
