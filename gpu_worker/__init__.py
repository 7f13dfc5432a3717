"""The GPU host side: Django-free engine, collectives, sandbox, graders and benchmarks."""
import sys

# kombu imports django.utils when Django happens to be installed beside it. The GPU host
# never needs Django, so a process that starts from gpu_worker keeps it out entirely.
if "django" not in sys.modules:
    sys.modules["django"] = None  # type: ignore[assignment]
