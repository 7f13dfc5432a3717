"""/healthz and the status page. Anyone sees ok/not-ok per part; staff and instructors also see hosts,
PIDs, versions and reasons."""

from django.http import JsonResponse
from django.shortcuts import render

from accounts.decorators import instructor_required
from accounts.roles import is_instructor
from health.status import PARTS, collect_health


def public(report: dict) -> dict:
    return {"ok": report["ok"], **{part: {"ok": report[part]["ok"]} for part in PARTS}}


def healthz(request):
    report = collect_health()
    user = request.user
    shown = report if user.is_authenticated and (user.is_staff or is_instructor(user)) else public(report)
    return JsonResponse(shown, status=200 if report["ok"] else 503)


@instructor_required
def status_page(request):
    report = collect_health()
    parts = [("Web worker", report["web_worker"]), ("GPU worker", report["gpu_worker"]), ("Labs", report["labs"])]
    return render(request, "health.html", {"report": report, "parts": parts}, status=200 if report["ok"] else 503)
