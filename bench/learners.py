"""The class that `python -m bench.load_mixed` replays: learners answering drills, a tenth resubmitting a lab.

N learners (new accounts, signed up through the site); nine in ten answer quiz drills,
1.3 answers a second each by default (--pace 0 goes flat out), one in ten submits the right kv-sizing
answer every second by default (--lab-interval; the site refuses a second run while one waits: that 400
is expected) and watches its run. Each learner acts as a browser does: it loads whole pages, posts answers and runs, polls a
run's panel and refreshes the lab's history list as the pages' htmx and scripts do (pressing Submit does
not reload the lab page). A probe fetches a static file ten times a second in its own process.
Learners run as threads, a few per process (--per-process; 1 gives each its own process, as each
browser of a class is its own machine), every client process at reduced priority (--client-nice), and
each measures its own CPU time, so a report says how much of the box the client itself took.
Afterwards it waits for every accepted run to be graded: a run never graded is a lost answer.
"""

import http.cookiejar
import multiprocessing
import os
import random
import re
import resource
import statistics
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

REFERENCE = (
    Path(__file__).resolve().parent.parent / "gpu_worker" / "graders" / "fixtures" / "kv-sizing" / "reference.py"
)
PASSWORD = "Quartz-river-8271"  # unlike every bench username, so the similarity check never refuses it


class Stats:
    """One process's figures; `merge` adds another's (they come back from the learners' processes)."""

    def __init__(self):
        self.requests = self.server_errors = self.lost_answers = 0
        self.page_s: list[float] = []
        self.by_kind: dict[str, list[float]] = {}
        self.static_s: list[float] = []
        self.runs: list[str] = []  # the submission URLs of the runs it sent
        self.never_graded, self.verdicts, self.drain_s = 0, {}, 0.0
        self.cpu_s, self.signed_up = 0.0, 0  # the client's own CPU time (user + system), learners signed up

    def record(self, status: int, seconds: float, kind: str, static: bool = False) -> None:
        self.requests += 1
        self.server_errors += status >= 500 or status == 0
        (self.static_s if static else self.page_s).append(seconds)
        self.by_kind.setdefault(kind, []).append(seconds)

    def merge(self, other: "Stats") -> None:
        self.requests += other.requests
        self.server_errors += other.server_errors
        self.lost_answers += other.lost_answers
        self.page_s += other.page_s
        self.static_s += other.static_s
        for kind, values in other.by_kind.items():
            self.by_kind.setdefault(kind, []).extend(values)
        self.runs += other.runs
        self.never_graded += other.never_graded
        for verdict, n in other.verdicts.items():
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + n
        self.drain_s = max(self.drain_s, other.drain_s)
        self.cpu_s += other.cpu_s
        self.signed_up += other.signed_up


def kind_of(path: str, posted: bool) -> str:
    """What a request is, for the latency breakdown: its verb and its path with ids and slugs folded."""
    base, _, query = path.partition("?")
    shape = re.sub(r"/\d+/", "/<id>/", base) + (f"?{query}" if query.startswith("part=") else "")
    shape = re.sub(r"^/drills/[^/]+/quiz/[^/]+/", "/drills/<module>/quiz/<drill>/", shape)
    return ("POST " if posted else "GET ") + shape


class Learner:
    def __init__(self, base: str, stats: Stats):
        self.base, self.stats = base, stats
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def request(
        self, path: str, data: dict | None = None, static: bool = False, htmx: bool = False
    ) -> tuple[int, str, str]:
        """(status, body, final URL); status 0 when the connection failed. `htmx`: ask as the page's
        htmx does (its posts and polls), for the fragment a browser swaps in rather than a whole page."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        ask = urllib.request.Request(self.base + path, data=body, headers={"HX-Request": "true"} if htmx else {})
        started = time.perf_counter()
        try:
            with self.opener.open(ask, timeout=30) as response:
                status, text, url = response.status, response.read().decode("utf-8", "replace"), response.geturl()
        except urllib.error.HTTPError as error:
            status, text, url = error.code, error.read().decode("utf-8", "replace"), error.geturl()
        except OSError:
            status, text, url = 0, "", ""
        self.stats.record(status, time.perf_counter() - started, kind_of(path, body is not None), static)
        return status, text, url

    def form(self, path: str, fields: dict, htmx: bool = False) -> tuple[int, str, str]:
        _, page, _ = self.request(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        extra = {"round": m.group(1)} if (m := re.search(r'name="round" value="([^"]*)"', page)) else {}
        return self.request(
            path if "action" not in fields else fields.pop("action"),
            {"csrfmiddlewaretoken": token.group(1) if token else "", **extra, **fields},
            htmx=htmx,
        )

    def sign_up(self, name: str) -> None:
        status, _, url = self.form(
            "/accounts/signup/",
            {"username": name, "email": f"{name}@example.com", "password1": PASSWORD, "password2": PASSWORD},
        )
        if status != 200 or "/signup/" in url:
            raise SystemExit(
                f"could not sign up {name} (HTTP {status}); is the site up at {self.base}? (a site that is not "
                "the benchmark's own throttles sign-ups: SIGNUP_PER_ADDRESS_HOUR)"
            )


def find_quizzes(learner: Learner) -> list[str]:
    _, index, _ = learner.request("/drills/")
    quizzes: list[str] = []
    for module in sorted(set(re.findall(r'href="(/drills/module/[^"]+/)"', index))):
        _, page, _ = learner.request(module)
        quizzes += re.findall(r'href="(/drills/[^"/]+/quiz/[^"/]+/)"', page)
    return sorted(set(quizzes))


def drill_loop(learner: Learner, quizzes: list[str], until: float, offset: int, pace: float) -> None:
    """Answer quiz after quiz, `pace` answers a second on average (0: as fast as the site answers, with 0.2 s to
    read); each learner reads at its own speed, so the class does not answer in lockstep."""
    turn, reader = offset, random.Random(offset)
    time.sleep(reader.uniform(0, 1 / pace if pace else 0.2))
    while time.monotonic() < until:
        started = time.monotonic()
        path = quizzes[turn % len(quizzes)]
        turn += 1
        status, page, _ = learner.request(path)
        choice = re.search(r'name="choice" value="([^"]+)"', page)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        round_ = re.search(r'name="round" value="([^"]*)"', page)
        if status != 200 or not (choice and token and round_):
            continue
        answered, _, _ = learner.request(
            path + "answer/",
            {"csrfmiddlewaretoken": token.group(1), "round": round_.group(1), "choice": choice.group(1)},
            htmx=True,
        )
        if not 200 <= answered < 300:
            learner.stats.lost_answers += 1
        reading = reader.uniform(0.5, 1.5) / pace if pace else 0.2
        time.sleep(max(0.2, reading - (time.monotonic() - started)))  # reading the feedback


def lab_loop(learner: Learner, source: str, until: float, offset: int, interval: float = 1.0) -> None:
    """Press Submit every `interval` seconds on a lab page loaded once, as its htmx and script do: the post
    swaps in the result panel (refused with a 400 while a run waits), the panel polls its run every second
    until it shows a verdict, and the history table is fetched again whenever the panel changes (a run sent,
    a run done)."""
    _, page, _ = learner.request("/labs/kv-sizing/")  # the page the learner has open
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    learner.stats = Stats()  # opening it is not part of what is measured
    time.sleep(random.Random(offset).uniform(0, interval))  # the class does not press Submit in the same instant
    shown = ""  # the panel's state as the page's script tracks it: which run, and whether it is done
    pressed = -interval  # when Submit was last pressed, on the monotonic clock
    while time.monotonic() < until:
        started = time.monotonic()
        if started - pressed >= interval - 0.01:
            pressed = started
            status, panel, _ = learner.request(
                "/labs/kv-sizing/",
                {"csrfmiddlewaretoken": token.group(1) if token else "", "mode": "submit", "source": source},
                htmx=True,
            )
            sent = re.search(r'href="(/labs/submissions/\d+/)"', panel)
            if status == 200 and sent:
                learner.stats.runs.append(sent.group(1))
        if learner.stats.runs and shown != learner.stats.runs[-1] + " done":  # a done panel stops polling
            _, outcome, _ = learner.request(learner.stats.runs[-1], htmx=True)  # the panel polling its run
            state = learner.stats.runs[-1] + (" done" if "data-verdict=" in outcome else " waiting")
            if state != shown:
                learner.request("/labs/kv-sizing/?part=history", htmx=True)
                shown = state
        time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))


def static_loop(learner: Learner, until: float) -> None:
    while time.monotonic() < until:
        learner.request("/static/css/site.css", static=True)
        time.sleep(0.1)  # often enough that its p95 is not a handful of samples


def drain(learner: Learner, timeout: float) -> None:
    """After the load: wait until each of this learner's runs shows a verdict; note how long that took."""
    started, waiting, stats = time.monotonic(), list(learner.stats.runs), learner.stats
    quiet = Learner(learner.base, Stats())  # the same session, but these polls are not part of the load
    quiet.opener = learner.opener
    while waiting and time.monotonic() - started < timeout:
        for path in list(waiting):
            _, page, _ = quiet.request(path)
            verdict = re.search(r'data-verdict="([^"]+)"', page)
            if verdict:
                stats.verdicts[verdict.group(1)] = stats.verdicts.get(verdict.group(1), 0) + 1
                waiting.remove(path)
        if waiting:
            time.sleep(0.5)
    stats.drain_s, stats.never_graded = time.monotonic() - started, len(waiting)


def play_role(learner: Learner, role: str, number: int, quizzes: list[str], args, seconds: float) -> None:
    until = time.monotonic() + seconds
    if role == "drill":
        drill_loop(learner, quizzes, until, number, args.pace)
    elif role == "idle-drill":
        drill_loop(learner, quizzes, until, number, 0)
    elif role == "lab":
        lab_loop(learner, REFERENCE.read_text(), until, number, args.lab_interval)
        drain(learner, args.drain_timeout)
    else:
        static_loop(learner, until)


def act(group: list[tuple[str, int, str]], base: str, quizzes: list[str], args, seconds: float, ready, results) -> None:
    """A few browsers of the class in one process (one thread each), at reduced priority: sign up, wait for
    the others, play each (role, number, username), send back the figures and this process's CPU time."""
    os.nice(args.client_nice)
    learners = [Learner(base, Stats()) for _ in group]
    try:
        for learner, (role, _, name) in zip(learners, group):
            if role != "static":
                learner.sign_up(name)
    except SystemExit as failed:
        results.put(str(failed))
        ready.abort()
        return
    ready.wait()  # every process signs up first, so the load starts at once
    before = resource.getrusage(resource.RUSAGE_SELF)
    for learner in learners:
        learner.stats = Stats()  # count only the load itself, not the set-up
    threads = [
        threading.Thread(target=play_role, args=(learner, role, number, quizzes, args, seconds), daemon=True)
        for learner, (role, number, _) in zip(learners, group)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after, total = resource.getrusage(resource.RUSAGE_SELF), Stats()
    for learner in learners:
        total.merge(learner.stats)
    total.cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    total.signed_up = sum(role != "static" for role, _, _ in group)
    results.put(total)


def play(roles: list[str], base: str, tag: str, quizzes: list[str], args, seconds: float) -> Stats:
    """Run every role for `seconds`, `args.per_process` learners to a process (the static probe alone in its
    own), and add up what they measured."""
    context = multiprocessing.get_context("spawn")  # a clean interpreter each, as a browser is its own program
    named = [(role, n, f"load-{tag}-{role}-{n}") for n, role in enumerate(roles)]
    learners = [entry for entry in named if entry[0] != "static"]
    size = max(1, args.per_process)
    groups = [learners[i : i + size] for i in range(0, len(learners), size)]
    groups += [[entry] for entry in named if entry[0] == "static"]
    ready, results = context.Barrier(len(groups)), context.Queue()
    processes = [
        context.Process(target=act, args=(group, base, quizzes, args, seconds, ready, results), daemon=True)
        for group in groups
    ]
    for process in processes:
        process.start()
    total = Stats()
    for _ in processes:
        figures = results.get(timeout=seconds + args.drain_timeout + 600)
        if isinstance(figures, str):  # a learner could not sign up: nothing it measured would mean anything
            raise SystemExit(figures)
        total.merge(figures)
    for process in processes:
        process.join()
    return total


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000 if len(values) > 1 else float("nan")
