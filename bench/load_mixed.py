"""A class's load against a running `make run`: learners answering drills while others resubmit a lab.

    python -m bench.load_mixed --url http://127.0.0.1:8000 [--seconds 40] [--pace 1.3]

8 learners (new accounts, signed up through the site) answer quiz drills, 1.3 answers a second
each by default (the pace of the class this was first measured with; --pace 0 goes flat out);
3 more submit the right kv-sizing answer every second (the site refuses a second run while one
waits: that 400 is expected) and watch their run. Each learner acts as a browser does: it loads
whole pages, and posts answers and runs, polls a run's panel and refreshes the lab's history list as
the pages' htmx and scripts do (pressing Submit does not reload the lab page). A probe
fetches a static file ten times a second, the baseline the page latency is compared with.
Each learner and the probe is its own process, as each browser of a class is its own machine:
client threads sharing one interpreter wait on each other, and that wait would be timed as the
site's latency.
Afterwards it waits for every accepted run to be graded. Prints requests, 5xx, lost answers (a
drill answer without a 2xx, a run never graded), page p50/p95 beside the static file's, per kind
of request, the time to drain the queue, and /healthz; and, as the floor under page/static, the login form
(the lightest page) beside the static file on the idle site.
Target: 0 5xx, 0 lost, workers up, page p95 <= 3x static p95.
"""

import argparse
import http.cookiejar
import multiprocessing
import random
import re
import statistics
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
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
            raise SystemExit(f"could not sign up {name} (HTTP {status}); is `make run` up at {self.base}?")


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


def lab_loop(learner: Learner, source: str, until: float, offset: int) -> None:
    """Press Submit every second on a lab page loaded once, as its htmx and script do: the post swaps in the
    result panel (refused with a 400 while a run waits), the panel polls its run every second, and the
    history table is fetched again whenever the panel changes (a run sent, a run done)."""
    _, page, _ = learner.request("/labs/kv-sizing/")  # the page the learner has open
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    learner.stats = Stats()  # opening it is not part of what is measured
    time.sleep(random.Random(offset).uniform(0, 1))  # the three do not press Submit in the same instant
    shown = ""  # the panel's state as the page's script tracks it: which run, and whether it is done
    while time.monotonic() < until:
        started = time.monotonic()
        status, panel, _ = learner.request(
            "/labs/kv-sizing/",
            {"csrfmiddlewaretoken": token.group(1) if token else "", "mode": "submit", "source": source},
            htmx=True,
        )
        sent = re.search(r'href="(/labs/submissions/\d+/)"', panel)
        if status == 200 and sent:
            learner.stats.runs.append(sent.group(1))
        if learner.stats.runs:
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


def lightest_page(base: str, times: int = 200) -> tuple[Stats, Stats]:
    """The floor under page/static on this server: the login form (one template, no query, no session) and the
    static file, asked in turn by one client on the idle site."""
    form, static = Learner(base, Stats()), Learner(base, Stats())
    for _ in range(times):
        form.request("/accounts/login/")
        static.request("/static/css/site.css", static=True)
    return form.stats, static.stats


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


def act(
    role: str,
    number: int,
    base: str,
    name: str,
    quizzes: list[str],
    args: argparse.Namespace,
    seconds: float,
    ready,
    results,
) -> None:
    """One browser of the class, in its own process: sign up, wait for the others, play `role`, send back figures."""
    learner = Learner(base, Stats())
    try:
        if role != "static":
            learner.sign_up(name)
    except SystemExit as failed:
        results.put(str(failed))
        ready.abort()
        return
    ready.wait()  # every process signs up first, so the load starts at once
    learner.stats = Stats()  # count only the load itself, not the set-up
    until = time.monotonic() + seconds
    if role == "drill":
        drill_loop(learner, quizzes, until, number, args.pace)
    elif role == "idle-drill":
        drill_loop(learner, quizzes, until, number, 0)
    elif role == "lab":
        lab_loop(learner, REFERENCE.read_text(), until, number)
        drain(learner, args.drain_timeout)
    else:
        static_loop(learner, until)
    results.put(learner.stats)


def play(roles: list[str], base: str, tag: str, quizzes: list[str], args, seconds: float) -> Stats:
    """Run one process per role for `seconds` and add up what they measured."""
    context = multiprocessing.get_context("spawn")  # a clean interpreter each, as a browser is its own program
    ready, results = context.Barrier(len(roles)), context.Queue()
    processes = [
        context.Process(
            target=act,
            args=(role, n, base, f"load-{tag}-{role}-{n}", quizzes, args, seconds, ready, results),
            daemon=True,
        )
        for n, role in enumerate(roles)
    ]
    for process in processes:
        process.start()
    total = Stats()
    for _ in processes:
        figures = results.get(timeout=seconds + args.drain_timeout + 120)
        if isinstance(figures, str):  # a learner could not sign up: nothing it measured would mean anything
            raise SystemExit(figures)
        total.merge(figures)
    for process in processes:
        process.join()
    return total


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000 if len(values) > 1 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--drill-learners", type=int, default=8)
    parser.add_argument(
        "--pace",
        type=float,
        default=1.3,
        help="answers a second per drill learner (1.3: the class this was first measured with, "
        "418 answers in 40 s from 8 learners; 0: as fast as the site answers)",
    )
    parser.add_argument("--lab-learners", type=int, default=3)
    parser.add_argument("--drain-timeout", type=float, default=600)
    args = parser.parse_args()
    base, tag = args.url.rstrip("/"), uuid.uuid4().hex[:6]
    scout = Learner(base, Stats())
    scout.sign_up(f"load-{tag}-scout")
    quizzes = find_quizzes(scout)
    if not quizzes:
        raise SystemExit("no quiz drills found under /drills/; was the course content loaded?")
    form, form_static = lightest_page(base)
    idle = play(["idle-drill", "static"], base, tag + "i", quizzes, args, 8)
    print(
        f"load: {args.drill_learners} learners on {len(quizzes)} quiz drills "
        f"({f'{args.pace:g} answers/s each' if args.pace else 'flat out'}), {args.lab_learners} resubmitting "
        f"kv-sizing every second, {args.seconds:g} s against {base}, one process each",
        flush=True,
    )
    load = play(
        ["drill"] * args.drill_learners + ["lab"] * args.lab_learners + ["static"],
        base,
        tag,
        quizzes,
        args,
        args.seconds,
    )
    health_status, health, _ = scout.request("/healthz")
    page95, static95 = pct(load.page_s, 95), pct(load.static_s, 95)
    idle_page95, idle_static95 = pct(idle.page_s, 95), pct(idle.static_s, 95)
    print(f"requests           {load.requests}  (5xx or no answer: {load.server_errors})")
    print(
        f"lost answers       {load.lost_answers + load.never_graded}  (drill answers without a 2xx: "
        f"{load.lost_answers}; runs never graded: {load.never_graded} of {len(load.runs)})"
    )
    print(f"verdicts           {load.verdicts}")
    print(f"page latency       p50 {pct(load.page_s, 50):.0f} ms  p95 {page95:.0f} ms  ({len(load.page_s)} requests)")
    print(
        f"static file        p50 {pct(load.static_s, 50):.0f} ms  p95 {static95:.0f} ms  "
        f"({len(load.static_s)} requests)"
    )
    print(f"page/static p95    {page95 / static95:.2f}x  (target <= 3x)")
    print(
        f"idle site, before  page p95 {idle_page95:.0f} ms, static p95 {idle_static95:.0f} ms: page/static "
        f"{idle_page95 / idle_static95:.2f}x; the load made pages {page95 / idle_page95:.2f}x "
        f"and the static file {static95 / idle_static95:.2f}x slower at p95"
    )
    form95, form_static95 = pct(form.page_s, 95), pct(form_static.static_s, 95)
    print(
        f"lightest page      the login form, idle, one client: p95 {form95:.1f} ms beside the static file's "
        f"{form_static95:.1f} ms, {form95 / form_static95:.2f}x (every other page does more)"
    )
    print("by request         p50 / p95 ms, count")
    for kind, values in sorted(load.by_kind.items(), key=lambda item: -pct(item[1], 95) if len(item[1]) > 1 else 0):
        if len(values) > 1:
            print(f"  {kind:<40} {pct(values, 50):6.0f} / {pct(values, 95):6.0f}  {len(values)}")
    print(f"queue drained in   {load.drain_s:.1f} s after the load stopped")
    print(f"/healthz           HTTP {health_status} {health.strip()}")


if __name__ == "__main__":
    main()
