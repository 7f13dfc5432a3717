"""`make run` writes var/ under umask 077; the venv it makes must still be readable by the sandbox's uid, or
every lab that imports torch ends 'No module named torch' (found on a fresh clone)."""

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bootstrap_leaves_the_venv_readable_by_all_even_when_called_under_a_private_umask(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "bootstrap.sh", tmp_path / "scripts" / "bootstrap.sh")
    for name in ROOT.glob("requirements*"):
        shutil.copy(name, tmp_path / name.name)
    stamp = subprocess.run(  # the stamp bootstrap computes: with it in place nothing is installed
        "cat requirements*.txt requirements*.lock | sha256sum | cut -c1-16",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "torch"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o700)
    (tmp_path / ".venv" / f".requirements-{stamp}").touch()
    for folder in (site, site.parent, tmp_path / ".venv"):  # as a venv made under umask 077 is
        folder.chmod(0o700)
    (site / "__init__.py").chmod(0o600)
    subprocess.run(["bash", "-c", "umask 077; bash scripts/bootstrap.sh"], cwd=tmp_path, check=True, timeout=60)
    for path in (tmp_path / ".venv", site.parent, site):
        assert stat.S_IMODE(path.stat().st_mode) & 0o005 == 0o005, oct(path.stat().st_mode)
    assert stat.S_IMODE((site / "__init__.py").stat().st_mode) & 0o004
    assert os.access(python, os.X_OK)


def test_the_worker_reports_a_venv_its_runs_cannot_read():
    from gpu_worker.sandbox.isolation import unreadable_by_runs

    top = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's own tmp folders are private to their user
    try:
        venv = top / "venv" / "lib"
        venv.mkdir(parents=True)
        top.chmod(0o700)  # above the venv: bubblewrap makes its own folders there
        assert unreadable_by_runs([top / "venv", venv]) == ""
        (top / "venv").chmod(0o700)
        assert unreadable_by_runs([top / "venv", venv]) == str(top / "venv")
        (top / "venv").chmod(0o755)
        venv.chmod(0o700)
        assert unreadable_by_runs([top / "venv", venv]) == str(venv)
    finally:
        shutil.rmtree(top)
