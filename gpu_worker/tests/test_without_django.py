"""The worker's tests need only the worker's dependencies: under `-c gpu_worker/pytest.ini` pytest loads
neither Django (nor pytest-django) nor the repository's root conftest.py, so a GPU host with only
requirements-worker*.txt installed runs them (README, GPU host)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COLLECT = """
import json, sys, pytest
sys.modules["django"] = None  # from here any `import django` raises ImportError: a collection error names it
code = pytest.main(["-c", "gpu_worker/pytest.ini", "gpu_worker/tests", "--collect-only", "-q", "-p", "no:randomly"])
files = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
web = sorted(name for name in sys.modules if name.split(".")[0] in {"pytest_django", "config", "accounts", "labs"})
print(json.dumps({"exit": int(code), "root_conftest": str(sys.argv[1]) in files, "web": web}))
"""


def test_collecting_the_worker_tests_imports_no_django_and_not_the_root_conftest():
    done = subprocess.run(
        [sys.executable, "-c", COLLECT, str(ROOT / "conftest.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "CELERY_BROKER_URL": "memory://"},
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"exit": 0, "root_conftest": False, "web": []}, done.stdout[-3000:] + done.stderr[-2000:]
    assert " tests collected" in done.stdout
