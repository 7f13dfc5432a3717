"""Fault test: the site's Redis (broker and cache, as under `make run`) is killed and started again while
learners use the site. No page is a 5xx; the run waiting in Redis when it died is sent again at a reaper tick
after its return; a run sent while it was away is given back at once, and its learner sends it again."""

import http.cookiejar
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
import redis
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import override_settings

from health.broker_epoch import broker_emptied_at
from labs.models import Submission
from labs.services import NOT_SENT_MESSAGE
from labs.tests.factories import LabFactory
from labs.tests.test_broker_restart import _sent_kwargs
from testing.redis_server import PrivateRedis
from testing.workers import test_database_url, wait_for
from tests.test_supervise import ROOT, _supervise

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PAGES = ["/labs/", "/labs/kv-sizing/", "/accounts/email/", "/"]


class Browser:
    """One learner's cookies, over plain HTTP to the real server."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(self, path: str, form: dict | None = None) -> tuple[int, str]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        headers = {"Referer": self.base + path}
        try:
            with self.opener.open(urllib.request.Request(self.base + path, data, headers), timeout=30) as page:
                return page.status, page.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")
        except OSError as error:  # refused or timed out: no page at all, which counts as a failure too
            return 0, str(error)

    def post(self, path: str, form: dict) -> tuple[int, str]:
        _, page = self.request(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        return self.request(path, {"csrfmiddlewaretoken": token, **form})

    def log_in(self, username: str) -> None:
        status, page = self.post("/accounts/login/", {"username": username, "password": "correct-horse-battery"})
        assert status == 200 and "Log out" in page, page[-1500:]


def _started(argv: list[str], env: dict, log) -> subprocess.Popen:
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def test_killing_redis_costs_no_page_and_no_run(tmp_path, learner, django_user_model):
    LabFactory()
    django_user_model.objects.create_user("bea", "bea@example.com")
    # a hash the dev settings' hashers read (the test settings hash with MD5 alone); few rounds: quick
    password = PBKDF2PasswordHasher().encode("correct-horse-battery", "outage-salt", iterations=1000)
    django_user_model.objects.update(password=password)
    server = PrivateRedis().start()
    supervise = _supervise()
    port = supervise.free_port(18950)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "VAR_DIR": str(tmp_path),
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": server.url(0),
        "CELERY_RESULT_BACKEND": server.url(0),
        "CACHE_URL": server.url(1),
        "WEB_PROCESSES": "2",
        "WEB_THREADS": "4",
    }
    celery = [sys.executable, "-m", "celery", "-A", "config"]
    log = open(tmp_path / "processes.log", "w")
    processes = [
        _started(supervise.web_argv("127.0.0.1", port), env, log),
        _started([*celery, "worker", "-Q", "default", "--pool=threads", "-c", "2", "-l", "warning"], env, log),
        _started([*celery, "beat", "-s", str(tmp_path / "beat-schedule"), "-l", "warning"], env, log),
    ]
    broker = redis.Redis.from_url(server.url(0))
    try:
        ada, bea = Browser(f"http://127.0.0.1:{port}"), Browser(f"http://127.0.0.1:{port}")
        wait_for(lambda: ada.request("/accounts/login/")[0] == 200, 90, "the web server")
        ada.log_in("ada")
        bea.log_in("bea")
        with override_settings(CELERY_BROKER_URL=server.url(0)):
            broker_emptied_at()  # the broker's start fixed before the run is sent (its uptime is whole seconds)
        assert ada.post("/labs/kv-sizing/", {"mode": "run", "source": "x = 1\n"})[0] == 200  # followed the 302
        waiting = Submission.objects.get(learner__username="ada")
        assert [_sent_kwargs(m)["submission_id"] for m in broker.lrange("gpu", 0, -1)] == [waiting.pk]

        answers: list[tuple[float, str, int]] = []
        going = threading.Event()
        going.set()

        def keep_reading(browser: Browser):
            while going.is_set():
                for path in PAGES:
                    answers.append((time.monotonic(), path, browser.request(path)[0]))

        readers = [threading.Thread(target=keep_reading, args=(who,)) for who in (ada, bea, ada)]
        for reader in readers:
            reader.start()
        time.sleep(2)
        server.kill()
        died = time.monotonic()
        status, page = bea.post("/labs/kv-sizing/", {"mode": "run", "source": "y = 2\n"})  # while Redis is away
        time.sleep(max(0.0, 1.0 - (time.monotonic() - died)))
        server.start()  # empty: no persistence, as make run's
        back = time.monotonic()
        time.sleep(3)
        going.clear()
        for reader in readers:
            reader.join(timeout=60)

        assert status == 200, page[:500]
        during = [answer for answer in answers if died <= answer[0] <= back]
        assert len(during) >= 3, len(during)
        print(f"{len(answers)} pages, {len(during)} of them while Redis was away, none a 5xx")
        assert [answer for answer in answers if answer[2] >= 500] == []
        assert {answer[2] for answer in answers} <= {200}, sorted({answer[2] for answer in answers})

        given_back = Submission.objects.get(learner__username="bea")
        assert (given_back.status, given_back.message) == ("done", NOT_SENT_MESSAGE)
        assert bea.post("/labs/kv-sizing/", {"mode": "run", "source": "y = 2\n"})[0] == 200  # sent again, at once

        def sent() -> list[int]:
            return [_sent_kwargs(m)["submission_id"] for m in broker.lrange("gpu", 0, -1)]

        # at a reaper tick (every 30 s) once beat and the worker are back on Redis: 25-26 s on an idle box,
        # more than 60 s once while a second test suite ran beside this one
        wait_for(lambda: waiting.pk in sent(), 150, f"ada's run sent again; the queue holds {sent()}")
        print(f"ada's run was sent again {time.monotonic() - back:.1f} s after Redis came back")
        assert sorted(sent()) == sorted(
            [waiting.pk, Submission.objects.filter(learner__username="bea").latest("pk").pk]
        )
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
        broker.close()
        server.stop()
