"""gpu_worker is Django-free: importing it (and its Celery app) never imports django."""
import subprocess
import sys


def test_importing_gpu_worker_leaves_django_out():
    code = (
        "import sys, gpu_worker, gpu_worker.celery_app, gpu_worker.tasks;"
        "bad = sorted(m for m, mod in sys.modules.items() if mod is not None and (m.split('.')[0] in"
        " {'django', 'config', 'course', 'drills', 'labs', 'instructor', 'accounts'}));"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    env = {"PATH": "/usr/bin:/bin", "CELERY_BROKER_URL": "memory://"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.returncode == 0, f"gpu_worker imported: {result.stdout} {result.stderr[-2000:]}"


def test_web_side_does_not_import_torch():
    code = (
        "import os, sys, django; os.environ['DJANGO_SETTINGS_MODULE']='config.settings.test';"
        "django.setup(); import config.urls, config.celery;"
        "from django.urls import get_resolver; get_resolver().url_patterns;"
        "sys.exit(1 if 'torch' in sys.modules else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_contract_imports_neither_torch_nor_django():
    """Both sides import gpu_worker.contract, so it reads lab.yaml without dragging in either side's stack."""
    code = (
        "import sys, gpu_worker.contract as c; c.lab_limits(c.lab_slugs()[0]);"
        "bad = sorted(m for m, mod in sys.modules.items() if mod is not None and m.split('.')[0] in"
        " {'torch', 'numpy', 'triton', 'celery', 'kombu', 'django', 'config', 'course', 'labs'});"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, f"gpu_worker.contract imported: {result.stdout} {result.stderr[-2000:]}"
