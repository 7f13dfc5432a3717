"""gpu_worker is Django-free: importing it (and its Celery app) never imports django; the web apps reach it
only through gpu_worker.contract."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEB_APPS = ("accounts", "course", "drills", "experiments", "instructor", "labs")


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
        "import sys, pkgutil, importlib, gpu_worker.contract as c; c.lab_limits(c.lab_slugs()[0]);"
        "[importlib.import_module(f'gpu_worker.contract.{m.name}') for m in pkgutil.iter_modules(c.__path__)];"
        "bad = sorted(m for m, mod in sys.modules.items() if mod is not None and m.split('.')[0] in"
        " {'torch', 'numpy', 'triton', 'celery', 'kombu', 'django', 'config', 'course', 'labs'});"
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, f"gpu_worker.contract imported: {result.stdout} {result.stderr[-2000:]}"


def _gpu_worker_imports(path: Path) -> list[str]:
    """The gpu_worker modules a file imports, as written (`from gpu_worker import x` gives gpu_worker.x)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [
                f"{node.module}.{alias.name}" if node.module == "gpu_worker" else node.module for alias in node.names
            ]
    return [name for name in names if name.split(".")[0] == "gpu_worker"]


def test_web_apps_import_only_the_contract_from_gpu_worker():
    """The web apps' code (tests aside) shares only the contract with the worker; the rest goes by task name."""
    stray = [
        f"{path.relative_to(ROOT)}: {name}"
        for app in WEB_APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "tests" not in path.parts
        for name in _gpu_worker_imports(path)
        if not (name == "gpu_worker.contract" or name.startswith("gpu_worker.contract."))
    ]
    assert stray == []
