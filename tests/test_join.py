"""A second grading host joins a running site's broker the way `make join` starts it, and takes runs.

Real Redis, the real web worker, a first grading worker as `make run` starts one, and `scripts/join.sh`
(what `make join BROKER_URL=...` runs) as the second host; a burst of learners' submissions is graded by
both. Also: the Docker variant's lone gpu-worker is docker-compose.yml's, with only its broker changed."""

import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from testing.workers import client_app, purge_queues, running_web_worker, running_worker, stop_process_group

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "gpu_worker" / "graders" / "fixtures" / "kv-sizing" / "reference.py").read_text()


def wait_for_joined_beat(timeout: float = 120):
    from health.models import WorkerHeartbeat

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        beat = WorkerHeartbeat.objects.filter(name__startswith="joined1@").first()
        if beat:
            return beat
        time.sleep(0.5)
    return None


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.django_db(transaction=True)
def test_a_second_host_joins_the_broker_with_one_command_and_grades_part_of_a_burst(redis_url, tmp_path):
    from accounts.tests.factories import UserFactory
    from labs.models import Submission
    from labs.services import submission_create
    from labs.tests.factories import LabFactory
    from testing.workers import wait_until_finished

    purge_queues(client_app(), "gpu", "default")
    lab = LabFactory()
    env = {**os.environ, "GRADING_WORKERS": "1", "VAR_DIR": str(tmp_path / "joined")}
    with (
        running_web_worker(tmp_path),
        running_worker("gpu_worker.celery_app", "gpu", tmp_path, name="first") as first,
    ):
        joined = subprocess.Popen(
            ["bash", str(ROOT / "scripts" / "join.sh"), redis_url],
            cwd=ROOT,
            env=env,
            stdout=(tmp_path / "join.out").open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            beat = wait_for_joined_beat()
            log = (tmp_path / "join.out").read_text()
            assert beat is not None, f"the joined worker never beat:\n{log[-3000:]}"
            assert "==> grading for the site whose broker is 127.0.0.1" in log
            burst = [
                submission_create(
                    learner=UserFactory(username=f"burst-{n}"),
                    lab=lab,
                    mode="submit",
                    source=REFERENCE,
                )
                for n in range(6)
            ]
            done = [wait_until_finished(submission, "is_done", timeout=300) for submission in burst]
        finally:
            stop_process_group(joined, grace=20)
    assert [(row.verdict, row.score) for row in done] == [("accepted", 1.0)] * 6
    graded_by = {row.result["worker"]["pid"] for row in Submission.objects.all()}
    assert first.pid in graded_by and len(graded_by) == 2, graded_by  # both hosts graded some of the burst
    assert beat.info["queues"] == ["gpu"]  # the joined host runs a grading worker and nothing else


def test_join_refuses_a_broker_that_does_not_answer_in_one_line(tmp_path):
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "scripts" / "join.py"), "redis://127.0.0.1:1/0"],
        env={**os.environ, "VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("!! the broker at 127.0.0.1:1 does not answer")
    bad = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "scripts" / "join.py"), "http://example.com"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 1 and "BROKER_URL must look like redis://" in bad.stderr
    assert not list(tmp_path.iterdir())  # nothing started


def test_the_docker_join_file_runs_compose_s_gpu_worker_alone_on_the_given_broker():
    main = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["gpu-worker"]
    join = yaml.safe_load((ROOT / "docker-compose.join.yml").read_text())["services"]
    assert list(join) == ["gpu-worker"]
    lone = join["gpu-worker"]
    assert lone["environment"] == {
        "CELERY_BROKER_URL": "${BROKER_URL:?set BROKER_URL to the first site's broker, redis://:password@host:port/0}"
    }
    same = {key: value for key, value in main.items() if key not in ("environment", "depends_on")}
    assert {key: value for key, value in lone.items() if key != "environment"} == same


def test_a_broker_opened_to_other_hosts_keeps_its_password_across_restarts_and_a_private_one_does_not(
    tmp_path, monkeypatch
):
    import importlib.util

    spec = importlib.util.spec_from_file_location("supervise", ROOT / "scripts" / "supervise.py")
    supervise = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(supervise)
    monkeypatch.setattr(supervise, "VAR", tmp_path)
    shared = supervise.broker_password(shared=True)
    assert supervise.broker_password(shared=True) == shared and len(shared) == 32
    assert (tmp_path / "broker.secret").stat().st_mode & 0o777 == 0o600
    assert supervise.broker_password(shared=False) not in (shared, supervise.broker_password(shared=False))
    assert supervise.join_address("10.0.0.5") == "10.0.0.5"
    assert supervise.listen_addresses("10.0.0.5") == ["127.0.0.1", "10.0.0.5"]
    assert supervise.listen_addresses("0.0.0.0") == ["0.0.0.0"]  # loopback included: Redis refuses both
    assert supervise.listen_addresses("127.0.0.1") == ["127.0.0.1"]


def _compose() -> list[str] | None:
    import shutil

    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


@pytest.mark.skipif(_compose() is None, reason="no docker compose client")
def test_the_docker_join_file_is_valid_with_a_broker_and_refused_without_one():
    command = [*_compose(), "-f", "docker-compose.join.yml", "config"]
    given = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "BROKER_URL": "redis://:pw@10.0.0.5:6379/0"},
        capture_output=True,
        text=True,
    )
    assert given.returncode == 0 and "redis://:pw@10.0.0.5:6379/0" in given.stdout, given.stderr
    env = {key: value for key, value in os.environ.items() if key != "BROKER_URL"}
    missing = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert missing.returncode != 0 and "set BROKER_URL" in missing.stderr
