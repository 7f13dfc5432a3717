"""Production settings: refuse to start without secrets; `check --deploy` is clean."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRONG_KEY = "k8Qz1v-Xw7!pR3m$Ls9@Tb2#Nf6^Hd4&Jc0*Ya5(Ue8)Gi-Vo3+Er7~Mn1"


def manage(*args, **env):
    full_env = {
        k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    full_env.update({"DJANGO_SETTINGS_MODULE": "config.settings.prod", **env})
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True)


def test_check_deploy_reports_no_warnings():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="course.example.com"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_prod_refuses_to_start_without_secret_key():
    result = manage("check", ALLOWED_HOSTS="course.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_prod_refuses_to_start_without_allowed_hosts():
    result = manage("check", SECRET_KEY=STRONG_KEY)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr


def _compose_command() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


@pytest.mark.skipif(_compose_command() is None, reason="no docker compose client")
def test_docker_compose_config_is_valid():
    result = subprocess.run([*_compose_command(), "config"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for service in ("web:", "web-worker:", "gpu-worker:", "redis:", "postgres:"):
        assert service in result.stdout


def test_dev_settings_make_a_private_secret_key_once_and_no_w009(tmp_path):
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.dev", "VAR_DIR": str(tmp_path)}
    first = manage("check", "--deploy", **env)
    assert "W009" not in first.stdout + first.stderr, first.stdout + first.stderr
    key_file = tmp_path / "secret_key"
    assert (key_file.stat().st_mode & 0o777) == 0o600 and len(key_file.read_text()) >= 50
    key = key_file.read_text()
    manage("check", **env)
    assert key_file.read_text() == key  # the same key on the next start: sessions survive a restart


def test_run_script_makes_var_private():
    assert "umask 077" in (ROOT / "scripts" / "run.sh").read_text()


def test_compose_takes_mail_from_one_email_url():
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "EMAIL_URL: ${EMAIL_URL" in compose and "console" not in compose
    assert "EMAIL_URL=" in (ROOT / ".env.example").read_text()
