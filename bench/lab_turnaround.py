"""Submit each lab's reference solution and an honest naive answer through a real worker and broker;
p50/p95 from submit to result.

`python -m bench.lab_turnaround [--repeats N] [--labs kv-sizing,...] [--out FILE]`. Beside them, the floor
measured in the same run: a bare sandboxed `python -c "import torch"` (gpu_worker.sandbox), as a ratio;
for a lab with one sandbox per rank (ring-allreduce: four), also that many sandboxed imports started at
once, the floor under its own start.
The naive answer is what a learner's first correct attempt looks like (NAIVE); where a lab has none slower
than its reference, the reference stands for both. Each row also shows the sandbox's own CPU (the learner's
code plus its interpreter), so a ratio over 2 can be told apart: grader-side work, or the learner's own cost.

`--in-process` skips Django and the broker: it grades through the shell entry point's own code
(`python -m gpu_worker.grade LAB FILE --mode submit`, called in this process), floor and grade
measured in turns so both see the same load. Default lab there: ring-allreduce.

`--burst N [--workers 1,2]`: N learners submit kv-sizing at the same instant; the time until the last
verdict (the queue's drain) with 1 and then 2 grading workers (`make run`'s, or a second host's from
`make join`: the same process on the same broker), how many runs each worker graded, and the ratio.
"""

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "gpu_worker" / "graders" / "fixtures"
NAIVE = {"paged-attention": "honest_per_sequence_loop", "scheduler": "slow_one_at_a_time"}  # else the reference


def answers(slug: str) -> dict[str, Path]:
    """{"reference": file, "naive": file} for `slug`."""
    return {
        "reference": FIXTURES / slug / "reference.py",
        "naive": FIXTURES / slug / f"{NAIVE.get(slug, 'reference')}.py",
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50_s": round(statistics.median(values), 3),
        "p95_s": round(percentile(values, 95), 3),
        "min_s": round(min(values), 3),
        "max_s": round(max(values), 3),
    }


def sandboxed_import_torch_s(at_once: int = 1) -> float:
    """Seconds for `python -c "import torch"` started, isolated and limited exactly as learner code is;
    `at_once` sandboxes started together (a multi-rank lab's start: one sandbox per rank) until the last ends."""
    from concurrent.futures import ThreadPoolExecutor

    from gpu_worker.sandbox import run_python

    started = time.monotonic()
    with ThreadPoolExecutor(at_once) as pool:
        for exit, output in pool.map(lambda _: run_python(["-c", "import torch"]), range(at_once)):
            if exit.returncode != 0:
                raise RuntimeError(f"sandboxed import torch failed ({exit.returncode}): {output[-500:]}")
    return time.monotonic() - started


def rank_floors(slugs: list[str], repeats: int) -> dict:
    """{slug: floor summary} for the labs that start one sandbox per rank (a grader's RANKS, as the runner
    reads it): that many imports at once."""
    from gpu_worker.graders.runner import grader_module

    ranks = {slug: getattr(grader_module(slug), "RANKS", 0) for slug in slugs}
    return {
        slug: summary([sandboxed_import_torch_s(count) for _ in range(repeats)])
        for slug, count in ranks.items()
        if count > 1
    }


def setup_django(folder: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.sqlite3'}"
    os.environ.setdefault("LABS_HOURLY_CAP", "1000000")
    import django
    from django.core.management import call_command

    import testing.services  # noqa: F401  - finds (or starts) Redis

    django.setup()
    call_command("migrate", verbosity=0)


def ensure_labs(slugs: list[str]) -> None:
    from django.core.management import CommandError, call_command

    from labs.content_reader import CONTENT_DIR
    from labs.models import Lab

    if CONTENT_DIR.is_dir():
        try:
            call_command("load_labs", verbosity=0)
        except CommandError as error:  # the bench needs only the rows, not the statements
            print(f"load_labs failed ({error}); using bare lab rows", file=sys.stderr)
    for slug in slugs:
        Lab.objects.get_or_create(slug=slug, defaults={"title": slug, "module_slug": "bench"})


def time_submission(learner, lab, source: str, timeout: float = 300) -> tuple[float, dict]:
    """Seconds from submission_create to the row the page polls showing `done`, and its result JSON."""
    from labs.models import Submission
    from labs.services import submission_create

    started = time.monotonic()
    submission = submission_create(learner=learner, lab=lab, mode="submit", source=source)
    while time.monotonic() - started < timeout:
        row = Submission.objects.filter(pk=submission.pk).values("status", "verdict", "result").get()
        if row["status"] == "done":
            return time.monotonic() - started, row["result"] or {"verdict": row["verdict"]}
        time.sleep(0.02)
    raise TimeoutError(f"{lab.slug}: no result in {timeout} s")


def grade_from_shell_entry(slug: str, path: Path) -> tuple[float, dict]:
    """Seconds for `python -m gpu_worker.grade SLUG FILE --mode submit` minus the interpreter's own start
    (it is called in this process), and the result JSON it printed."""
    from gpu_worker import grade

    printed = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(printed):
        grade.main([slug, str(path), "--mode", "submit"])
    return time.monotonic() - started, json.loads(printed.getvalue())


class Rows:
    """Seconds, verdicts and the sandbox's own figures per (lab, answer), summarised against the floor."""

    def __init__(self):
        self.seconds, self.results = {}, {}

    def add(self, key: tuple[str, str], seconds: float, result: dict) -> None:
        self.seconds.setdefault(key, []).append(seconds)
        self.results.setdefault(key, []).append(result)

    def report(self, floor: dict, rank_floor: dict | None = None) -> dict:
        """`rank_floor`: {slug: floor} for labs with one sandbox per rank, whose start is that many imports."""
        labs = {}
        for (slug, answer), seconds in self.seconds.items():
            results = self.results[(slug, answer)]
            figures = summary(seconds)
            metrics = [r.get("metrics") or {} for r in results]
            figures.update(
                answer=NAIVE.get(slug, "reference") if answer == "naive" else "reference",
                verdicts=sorted({r.get("verdict", "?") for r in results}),
                p50_over_floor=round(figures["p50_s"] / floor["p50_s"], 2),
                p95_over_floor=round(figures["p95_s"] / floor["p50_s"], 2),
            )
            if slug in (rank_floor or {}):
                figures["p50_over_rank_floor"] = round(figures["p50_s"] / rank_floor[slug]["p50_s"], 2)
            for name in ("sandbox_start_s", "sandbox_cpu_s", "sandbox_own_s"):
                values = [m[name] for m in metrics if isinstance(m.get(name), (int, float))]
                if values:
                    figures[f"{name.removesuffix('_s')}_p50_s"] = round(statistics.median(values), 3)
            labs[f"{slug} ({answer})"] = figures
        return labs


def in_process(slugs: list[str], repeats: int) -> dict:
    report = {"broker": "none (in process)", "repeats": repeats}
    sandboxed_import_torch_s()  # warm the page cache
    for slug in slugs:  # warm-up, not counted (a worker keeps what it measured once)
        grade_from_shell_entry(slug, answers(slug)["reference"])
    floor, rows = [], Rows()
    for _ in range(repeats):  # in turns: a busy spell on the host hits the floor and the grades alike
        floor.append(sandboxed_import_torch_s())
        for slug in slugs:
            for answer, path in answers(slug).items():
                rows.add((slug, answer), *grade_from_shell_entry(slug, path))
    report["floor"] = summary(floor)
    report["rank_floor"] = rank_floors(slugs, repeats)
    report["labs"] = rows.report(report["floor"], report["rank_floor"])
    return report


def drain_burst(slug: str, runs: int, workers: int, folder: Path) -> dict:
    """With `workers` grading workers and the web worker up: `runs` learners submit at once; seconds until
    the last run is done, and how many each worker (by process id) graded."""
    from django.contrib.auth import get_user_model

    from health.models import WorkerHeartbeat
    from labs.models import Lab, Submission
    from labs.services import submission_create
    from testing.workers import running_web_worker, running_worker, wait_until_finished

    lab, source = Lab.objects.get(slug=slug), (FIXTURES / slug / "reference.py").read_text()
    users = get_user_model().objects

    def submit_all(tag: str, count: int) -> tuple[list, float]:
        learners = [users.create_user(f"burst-{workers}-{tag}-{n}") for n in range(count)]
        started = time.monotonic()
        sent = [submission_create(learner=one, lab=lab, mode="submit", source=source) for one in learners]
        done = [wait_until_finished(row, "is_done", timeout=600) for row in sent]
        return done, time.monotonic() - started

    WorkerHeartbeat.objects.all().delete()  # the last round's workers are gone
    with contextlib.ExitStack() as stack:
        stack.enter_context(running_web_worker(folder))
        for number in range(1, workers + 1):
            stack.enter_context(running_worker("gpu_worker.celery_app", "gpu", folder, name=f"burst{number}"))
        deadline = time.monotonic() + 120  # a ping is answered by any one worker: wait until each has beaten
        while WorkerHeartbeat.objects.filter(name__startswith="burst").count() < workers:
            if time.monotonic() > deadline:
                raise SystemExit(f"only some of the {workers} grading workers came up; see {folder}/worker-*.log")
            time.sleep(0.3)
        submit_all("warm", workers)  # each worker's first run loads what it keeps; not counted
        done, drained = submit_all("burst", runs)
    per_worker: dict[str, int] = {}
    for row in Submission.objects.filter(pk__in=[row.pk for row in done]):
        pid = str((row.result or {}).get("worker", {}).get("pid"))
        per_worker[pid] = per_worker.get(pid, 0) + 1
    turnaround = [(row.finished_at - row.queued_at).total_seconds() for row in done]
    return {
        "workers": workers,
        "runs": runs,
        "drain_s": round(drained, 2),
        "runs_per_worker": sorted(per_worker.values(), reverse=True),
        "verdicts": sorted({row.verdict for row in done}),
        "turnaround": summary(turnaround),
    }


def burst(runs: int, worker_counts: list[int]) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="lab-burst-"))
    setup_django(folder)
    from testing.workers import client_app, purge_queues

    ensure_labs(["kv-sizing"])
    purge_queues(client_app(), "gpu", "default")
    report = {"burst": runs, "lab": "kv-sizing", "cores": os.cpu_count(), "rounds": []}
    for workers in worker_counts:
        report["rounds"].append(drain_burst("kv-sizing", runs, workers, folder))
    print(
        f"burst of {runs} kv-sizing submissions at once, {os.cpu_count()} cores; drain = first submit to last verdict"
    )
    first = report["rounds"][0]["drain_s"]
    for round_ in report["rounds"]:
        print(
            f"  {round_['workers']} worker(s): drained in {round_['drain_s']:.1f} s "
            f"({first / round_['drain_s']:.2f}x the first row's speed), runs per worker {round_['runs_per_worker']}, "
            f"turnaround p50 {round_['turnaround']['p50_s']:.1f} s p95 {round_['turnaround']['p95_s']:.1f} s, "
            f"verdicts {', '.join(round_['verdicts'])}"
        )
    return report


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--labs", default="", help="comma-separated slugs (default: every lab with a reference)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--in-process", action="store_true", help="grade in this process: no Django, no broker")
    parser.add_argument("--burst", type=int, default=0, help="N learners submit at once (e.g. 20): the drain time")
    parser.add_argument("--workers", default="1", help="with --burst: grading workers, e.g. 1, 2 or 1,2 (in turn)")
    args = parser.parse_args(argv)
    if args.burst:
        report = burst(args.burst, [int(n) for n in args.workers.split(",") if n.strip()])
        if args.out:
            args.out.write_text(json.dumps(report, indent=2))
        return report
    available = sorted(path.parent.name for path in FIXTURES.glob("*/reference.py"))
    slugs = [slug for slug in args.labs.split(",") if slug] or available
    report = in_process(slugs, args.repeats) if args.in_process else through_broker(slugs, args.repeats)
    print_report(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return report


def through_broker(slugs: list[str], repeats: int) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="lab-turnaround-"))
    setup_django(folder)
    from django.contrib.auth import get_user_model

    from labs.models import Lab
    from testing.workers import client_app, purge_queues, running_worker

    ensure_labs(slugs)
    learner = get_user_model().objects.create_user("bench-learner")
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": os.environ["DATABASE_URL"]}
    purge_queues(client_app(), "gpu", "default")
    report = {"broker": os.environ["CELERY_BROKER_URL"].split("://")[0], "repeats": repeats}
    with running_worker("config.celery_local", "gpu,default", folder, env=env, name="bench"):
        sandboxed_import_torch_s()  # warm the page cache like the worker's first run does
        floor = [sandboxed_import_torch_s() for _ in range(repeats)]
        report["floor"] = summary(floor)
        report["rank_floor"] = rank_floors(slugs, repeats)
        rows = Rows()
        for slug in slugs:
            lab = Lab.objects.get(slug=slug)
            for answer, path in answers(slug).items():
                source = path.read_text()
                time_submission(learner, lab, source)  # warm-up, not counted
                for _ in range(repeats):
                    rows.add((slug, answer), *time_submission(learner, lab, source))
        report["labs"] = rows.report(report["floor"], report["rank_floor"])
    return report


def print_report(report: dict) -> None:
    floor = report["floor"]
    print(
        f"broker {report['broker']}, {report['repeats']} submissions per answer, "
        + ("grade call -> result JSON" if report["broker"].startswith("none") else "submit -> result in the database")
    )
    print(f"{'':40}{'p50 s':>8}{'p95 s':>8}{'p50/floor':>11}{'p95/floor':>11}{'start s':>9}{'cpu s':>8}  verdicts")
    print(
        f"{'floor: sandboxed import torch':<40}{floor['p50_s']:>8.3f}{floor['p95_s']:>8.3f}"
        f"{1.0:>11.2f}{floor['p95_s'] / floor['p50_s']:>11.2f}"
    )
    for slug, ranks_floor in report.get("rank_floor", {}).items():
        label = f"floor: {slug}'s ranks' imports at once"
        print(f"{label:<40}{ranks_floor['p50_s']:>8.3f}{ranks_floor['p95_s']:>8.3f}")
    for name, figures in report["labs"].items():
        print(
            f"{name:<40}{figures['p50_s']:>8.3f}{figures['p95_s']:>8.3f}{figures['p50_over_floor']:>11.2f}"
            f"{figures['p95_over_floor']:>11.2f}{figures.get('sandbox_start_p50_s', float('nan')):>9.2f}"
            f"{figures.get('sandbox_cpu_p50_s', float('nan')):>8.2f}  {', '.join(figures['verdicts'])}"
            + (
                f"  ({figures['p50_over_rank_floor']:.2f}x its ranks' floor)"
                if "p50_over_rank_floor" in figures
                else ""
            )
        )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
