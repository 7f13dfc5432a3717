"""Health: is the database up, is the broker reachable, does a `gpu` worker answer?"""
import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render

from accounts.decorators import instructor_required

from .celery import app


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
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
        return {"ok": True, "transport": transport}
    except Exception as error:
        return {"ok": False, "transport": transport, "error": f"{type(error).__name__}: {error}"}


def _check_gpu_worker(timeout: float) -> dict:
    started = time.monotonic()
    try:
        result = app.send_task("gpu_worker.ping", queue="gpu", expires=timeout + 5, retry=False)
        info = result.get(timeout=timeout)
        result.forget()
        return {"ok": True, "latency_ms": round((time.monotonic() - started) * 1000), **info}
    except Exception as error:
        reason = "no gpu worker answered" if "Timeout" in type(error).__name__ else type(error).__name__
        return {"ok": False, "error": f"{reason} within {timeout:g} s: {error}".strip()}


def collect_health() -> dict:
    database = _check_database()
    broker = _check_broker()
    if broker["ok"]:
        worker = _check_gpu_worker(settings.HEALTH_PING_TIMEOUT)
    else:
        worker = {"ok": False, "error": "broker unreachable, so no worker can be asked"}
    checks = {"database": database, "broker": broker, "gpu_worker": worker}
    return {"ok": all(check["ok"] for check in checks.values()), **checks}


def healthz(request):
    report = collect_health()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@instructor_required
def status_page(request):
    report = collect_health()
    return render(request, "health.html", {"report": report}, status=200 if report["ok"] else 503)
