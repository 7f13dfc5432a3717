"""The progress matrix for 200 learners x 8 modules on a throwaway SQLite DB, beside a per-learner baseline.

`python -m bench.instructor_matrix [--learners 200] [--modules 8] [--repeats 5] [--out FILE]`. The baseline
builds the same rows learner by learner (a dozen queries each) and renders the same template; target < 0.5 s.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def setup_django(folder: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'bench.sqlite3'}"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def seed(n_learners: int, n_modules: int):
    """A cohort where every learner read some sections, mastered some drills and submitted two labs twice."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts.roles import instructor_group
    from course.models import Section, SectionRead
    from drills.models import ReviewCard
    from instructor.tests import factories
    from labs.models import Lab, Submission

    User = get_user_model()
    instructor = factories.user("bench-instructor")
    instructor.groups.add(instructor_group())
    factories.course(n_modules=n_modules, n_sections=5)
    users = User.objects.bulk_create(
        [User(username=f"learner{i:04d}", email=f"l{i}@example.com") for i in range(n_learners)]
    )
    cohort = factories.cohort(instructor, users, name="Bench")
    now = timezone.now()
    sections, labs = list(Section.objects.all()), list(Lab.objects.all())
    drills = [d for m in range(1, n_modules + 1) for d in factories.drills(f"m{m}", n=4)]
    SectionRead.objects.bulk_create(
        [SectionRead(user=u, section=s) for i, u in enumerate(users) for s in sections[i % 3 :: 3]]
    )
    ReviewCard.objects.bulk_create(
        [
            ReviewCard(learner=u, drill=d, card={}, due=now, last_rating=3, passing=(i + j) % 2 == 0, reviewed_at=now)
            for i, u in enumerate(users)
            for j, d in enumerate(drills[::2])
        ]
    )
    Submission.objects.bulk_create(
        [
            Submission(
                learner=u,
                lab=lab,
                mode="submit",
                source="x",
                status="done",
                verdict="accepted",
                score=((i * 7 + k) % 10) / 10,
                max_score=1.0,
                finished_at=now - timedelta(hours=k),
            )
            for i, u in enumerate(users)
            for lab in labs[:2]
            for k in range(2)
        ]
    )
    return cohort, instructor


def render(cohort, instructor, build) -> tuple[str, int]:
    """The matrix page from a gradebook `build(cohort)`: same rows, same template as the view."""
    from django.db import connection, reset_queries
    from django.template.loader import render_to_string
    from django.test import RequestFactory
    from django.utils import timezone

    from instructor.matrix import HEAT_STEPS, matrix_rows, module_headers, sort_links

    request = RequestFactory().get("/")
    request.user = instructor
    reset_queries()
    gradebook = build(cohort)
    rows = matrix_rows(gradebook, sort="total", descending=True, inactive_days=7, now=timezone.now())
    links = sort_links(gradebook, sort="total", descending=True, query="", inactive_days=7)
    html = render_to_string(
        "instructor/matrix.html",
        {
            "cohort": cohort,
            "gradebook": gradebook,
            "rows": rows,
            "sort": "total",
            "descending": True,
            "q": "",
            "inactive": 7,
            "heat_steps": HEAT_STEPS,
            "links": links,
            "module_headers": module_headers(gradebook, links),
        },
        request=request,
    )
    return html, len(connection.queries)


def per_learner_gradebook(cohort):
    """The naive way: one gradebook (a dozen queries) per learner, stitched together."""
    from instructor.gradebook import cohort_gradebook

    books = [
        cohort_gradebook(cohort, learner_ids=[pk])
        for pk in cohort.memberships.order_by("learner__username").values_list("learner_id", flat=True)
    ]
    books[0].rows = [row for book in books for row in book.rows]
    return books[0]


def main_part(html: str) -> str:
    """The page without its per-request CSRF tokens."""
    return html[html.index("<main") : html.index("</main>")]


def timed(repeats: int, fn) -> tuple[list[float], str, int]:
    times, html, queries = [], "", 0
    for _ in range(repeats):
        started = time.perf_counter()
        html, queries = fn()
        times.append(time.perf_counter() - started)
    return times, html, queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--modules", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-matrix-") as folder:
        setup_django(Path(folder))
        from django.conf import settings
        from django.test.utils import override_settings

        from instructor.gradebook import cohort_gradebook

        cohort, instructor = seed(args.learners, args.modules)
        with override_settings(DEBUG=True):  # so connection.queries counts
            render(cohort, instructor, cohort_gradebook)  # warm templates and caches
            fast, fast_html, fast_queries = timed(args.repeats, lambda: render(cohort, instructor, cohort_gradebook))
            slow, slow_html, slow_queries = timed(
                args.repeats, lambda: render(cohort, instructor, per_learner_gradebook)
            )
        assert settings.DATABASES["default"]["NAME"].startswith(folder)
    same_page = main_part(fast_html) == main_part(slow_html)
    report = {
        "learners": args.learners,
        "modules": args.modules,
        "repeats": args.repeats,
        "matrix": {
            "median_s": round(statistics.median(fast), 4),
            "min_s": round(min(fast), 4),
            "queries": fast_queries,
        },
        "baseline_per_learner": {
            "median_s": round(statistics.median(slow), 4),
            "min_s": round(min(slow), 4),
            "queries": slow_queries,
        },
        "target_s": 0.5,
        "same_page": same_page,
    }
    report["ratio"] = round(report["matrix"]["median_s"] / report["baseline_per_learner"]["median_s"], 3)
    print(
        f"matrix {args.learners} learners x {args.modules} modules: median {report['matrix']['median_s']:.3f} s, "
        f"{fast_queries} queries"
    )
    print(
        f"baseline (per-learner queries): median {report['baseline_per_learner']['median_s']:.3f} s, "
        f"{slow_queries} queries"
    )
    print(
        f"ratio matrix/baseline: {report['ratio']:.3f}   target < 0.5 s: "
        f"{'met' if report['matrix']['median_s'] < 0.5 else 'MISSED'}"
    )
    if not same_page:
        print("warning: the baseline rendered a different page", file=sys.stderr)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
