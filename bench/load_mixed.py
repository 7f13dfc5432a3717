"""How large a class one box holds: the largest class at class pace that keeps pages quick, per settings.

    python -m bench.load_mixed --learners 20                  # one class of 20, on both kinds of settings
    python -m bench.load_mixed --find-max --max-learners 160  # the largest class that holds, on both
    python -m bench.load_mixed --url http://127.0.0.1:8000 --learners 10  # a site already running
    python -m bench.load_mixed --find-max --pace 0.1 --lab-interval 20    # a class at a person's pace

For each kind of settings (--sites: `embedded`, make run's own; `postgres`, the same on PostgreSQL at
--postgres-url) it starts a private site (bench/private_site.py); before each class it measures the idle
site (one learner answering flat out, and the static file), then the class of N at class pace
(bench/learners.py).
A class holds when page p95 <= 2x the idle site's page p95, with 0 5xx and 0 lost answers (a drill
answer without a 2xx, a run never graded). --find-max doubles N from --learners while it holds, then
halves the gap between the last class that held and the first that did not, down to --step. A class
that fails while the static file slowed past 2x as well (the whole server saturated, or another
process on a shared host) is measured again, --busy-retries times.
Every figure is printed beside the idle baseline of the same run, as a ratio, with the client's own
CPU time as a share of the box (the client runs at reduced priority, --client-nice).
"""

import argparse
import json
import os
import uuid
from pathlib import Path

from bench.learners import Learner, Stats, find_quizzes, pct, play
from bench.private_site import private_site

LIMIT = 2.0  # page p95 under the class, over the idle site's


def roles_for(learners: int) -> list[str]:
    labs = max(1, round(learners / 10)) if learners >= 2 else 0
    return ["drill"] * (learners - labs) + ["lab"] * labs + ["static"]


def idle_baseline(base: str, tag: str, quizzes: list[str], args) -> Stats:
    return play(["idle-drill", "static"], base, tag + "i", quizzes, args, args.idle_seconds)


def one_class(base: str, learners: int, idle: Stats, quizzes: list[str], args) -> dict:
    tag = uuid.uuid4().hex[:6]
    roles = roles_for(learners)
    load = play(roles, base, tag, quizzes, args, args.seconds)
    wall = args.seconds + load.drain_s  # what the client's CPU time was spent over (not the sign-ups)
    page95, idle95 = pct(load.page_s, 95), pct(idle.page_s, 95)
    static95, idle_static95 = pct(load.static_s, 95), pct(idle.static_s, 95)
    lost = load.lost_answers + load.never_graded
    figures = {
        "learners": learners,
        "drill": roles.count("drill"),
        "lab": roles.count("lab"),
        "requests": load.requests,
        "answers_per_s": round(
            sum(len(v) for k, v in load.by_kind.items() if k.endswith("/answer/")) / args.seconds, 1
        ),
        "server_errors": load.server_errors,
        "lost": lost,
        "runs": len(load.runs),
        "verdicts": load.verdicts,
        "page_p50_ms": round(pct(load.page_s, 50), 1),
        "page_p95_ms": round(page95, 1),
        "idle_page_p95_ms": round(idle95, 1),
        "page_p95_over_idle": round(page95 / idle95, 2),
        "static_p95_over_idle": round(static95 / idle_static95, 2),
        "drain_s": round(load.drain_s, 1),
        "client_cpu_share": round(load.cpu_s / (wall * (os.cpu_count() or 1)), 3),
    }
    kinds = [(pct(values, 95), kind) for kind, values in load.by_kind.items() if len(values) > 1]
    figures["slowest"] = [f"{kind} p95 {ms:.0f} ms" for ms, kind in sorted(kinds, reverse=True)[:2]]
    figures["holds"] = figures["page_p95_over_idle"] <= LIMIT and not load.server_errors and not lost
    return figures


def show(site: str, figures: dict) -> None:
    print(
        f"  {site:<9} {figures['learners']:>4} learners ({figures['drill']} drill, {figures['lab']} lab): "
        f"{figures['requests']} requests, {figures['answers_per_s']} answers/s, 5xx {figures['server_errors']}, "
        f"lost {figures['lost']} ({figures['runs']} runs), page p95 {figures['page_p95_ms']:.0f} ms = "
        f"{figures['page_p95_over_idle']:.2f}x idle ({figures['idle_page_p95_ms']:.0f} ms), static "
        f"{figures['static_p95_over_idle']:.2f}x idle, drain {figures['drain_s']} s, client CPU "
        f"{100 * figures['client_cpu_share']:.0f}% of the box -> {'holds' if figures['holds'] else 'does not hold'}"
        f"\n{'':14}slowest: {'; '.join(figures['slowest'])}"
        + (
            "; the static file slowed as much: the server or the host was saturated"
            if figures["static_p95_over_idle"] > LIMIT
            else ""
        ),
        flush=True,
    )


def search(site: str, base: str, args) -> dict:
    scout = Learner(base, Stats())
    scout.sign_up(f"load-{uuid.uuid4().hex[:6]}-scout")
    quizzes = find_quizzes(scout)
    if not quizzes:
        raise SystemExit(f"{site}: no quiz drills under /drills/; was the course content loaded?")
    steps = []

    def measure(n: int) -> bool:
        for attempt in range(1 + args.busy_retries):
            idle = idle_baseline(base, uuid.uuid4().hex[:6], quizzes, args)  # again before each class: a shared
            steps.append(one_class(base, n, idle, quizzes, args))  # host's load drifts between steps
            show(site, steps[-1])
            busy = steps[-1]["static_p95_over_idle"] > LIMIT  # everything slowed: perhaps a busy host, not the class
            if steps[-1]["holds"] or not busy or attempt == args.busy_retries:
                return steps[-1]["holds"]
            print(f"{'':14}measuring the class of {n} again, in case another process made the host busy", flush=True)
        return False

    held, failed, n = 0, 0, args.learners
    if not args.find_max:
        held, failed = (n, 0) if measure(n) else (0, n)
    else:
        while n <= args.max_learners and measure(n):
            held, n = n, n * 2
        failed = n if n <= args.max_learners else 0
        while failed and failed - held > args.step:
            middle = (held + failed) // 2
            held, failed = (middle, failed) if measure(middle) else (held, middle)
    return {"site": site, "url": base, "largest_holding": held, "first_failing": failed or None, "steps": steps}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="measure this running site instead of starting private ones")
    parser.add_argument("--sites", default="embedded,postgres", help="kinds of private site: embedded, postgres")
    parser.add_argument(
        "--postgres-url", default=os.environ.get("POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    parser.add_argument("--learners", type=int, default=10, help="the class (with --find-max: the first size)")
    parser.add_argument("--find-max", action="store_true", help="search for the largest class that holds")
    parser.add_argument("--max-learners", type=int, default=320)
    parser.add_argument("--step", type=int, default=5, help="--find-max stops when the gap is this small")
    parser.add_argument("--seconds", type=float, default=20, help="how long each class is measured")
    parser.add_argument("--idle-seconds", type=float, default=8)
    parser.add_argument("--pace", type=float, default=1.3, help="answers a second per drill learner (0: flat out)")
    parser.add_argument(
        "--lab-interval", type=float, default=1.0, help="seconds between a lab learner's presses of Submit"
    )
    parser.add_argument("--per-process", type=int, default=5, help="learners (threads) per client process")
    parser.add_argument("--client-nice", type=int, default=10, help="the client's niceness: the site comes first")
    parser.add_argument("--drain-timeout", type=float, default=300)
    parser.add_argument(
        "--busy-retries", type=int, default=1, help="measure a failing class again when the static file slowed as much"
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.learners < 1:
        parser.error("--learners must be at least 1")
    if args.pace < 0 or args.lab_interval <= 0:
        parser.error("--pace must be 0 or more and --lab-interval more than 0")
    print(
        f"class: 9 in 10 learners answer drills ({args.pace:g} answers/s each), 1 in 10 resubmits kv-sizing every "
        f"{args.lab_interval:g} s; {args.seconds:g} s per class; holds when page p95 <= {LIMIT:g}x idle, 0 5xx, 0 lost; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start",
        flush=True,
    )
    reports = []
    if args.url:
        reports.append(search("given", args.url.rstrip("/"), args))
    else:
        for site in [name.strip() for name in args.sites.split(",") if name.strip()]:
            if site not in ("embedded", "postgres"):
                parser.error(f"unknown site {site!r}: embedded or postgres")
            with private_site(site, args.postgres_url) as base:
                reports.append(search(site, base, args))
    for report in reports:
        print(
            f"largest class that holds, {report['site']}: {report['largest_holding']} learners"
            + (f" (not {report['first_failing']})" if report["first_failing"] else "")
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f} (figures from a loaded host are upper bounds on cost)")
    result = {
        "reports": reports,
        "pace": args.pace,
        "lab_interval_s": args.lab_interval,
        "load_average_end": os.getloadavg()[0],
        "cores": os.cpu_count(),
    }
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
