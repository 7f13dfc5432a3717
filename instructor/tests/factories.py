"""Builders for instructor tests: a small course, labs, submissions at given times, reads, mastery, cohorts."""

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from cohorts.models import Cohort, Membership
from course.models import Module, Section, SectionRead
from drills.models import Drill, ReviewCard
from labs.models import Lab, Submission

PASSWORD = "correct-horse-battery"


def user(username: str, **fields):
    """A user whose address is proved (accounts.VerifiedEmail), as after following the mailed link."""
    from accounts.models import VerifiedEmail

    made = get_user_model().objects.create_user(username, f"{username}@example.com", PASSWORD, **fields)
    VerifiedEmail.objects.create(user=made, email=made.email)
    return made


def course(n_modules: int = 2, n_sections: int = 3) -> list[Module]:
    """Modules m1..mN, each with sections and one lab `lab-<i>` that belongs to it."""
    modules = []
    for i in range(1, n_modules + 1):
        module = Module.objects.create(
            slug=f"m{i}",
            title=f"Module {i}",
            order=i,
            bound_resource="memory",
            bound_technique="paging",
            labs=[f"lab-{i}"],
        )
        Section.objects.bulk_create(
            [
                Section(module=module, slug=f"s{j}", title=f"Section {i}.{j}", order=j, body_html="<p>text</p>")
                for j in range(1, n_sections + 1)
            ]
        )
        Lab.objects.create(slug=f"lab-{i}", title=f"Lab {i}", module_slug=module.slug, order=i)
        modules.append(module)
    return modules


def cohort(instructor, learners=(), name: str = "Spring") -> Cohort:
    group = Cohort.objects.create(name=name)
    group.instructors.add(instructor)
    Membership.objects.bulk_create([Membership(cohort=group, learner=learner) for learner in learners])
    return group


def submission(
    learner,
    lab_slug: str,
    score: float | None = None,
    *,
    at: datetime | None = None,
    mode: str = "submit",
    status: str = "done",
    verdict: str = "accepted",
    max_score: float = 1.0,
    regrade_of=None,
    source: str = "def f():\n    return 1\n",
    result: dict | None = None,
) -> Submission:
    """A submission as the worker left it, created at `at` (default now)."""
    done = status == "done"
    sub = Submission.objects.create(
        learner=learner,
        lab=Lab.objects.get(slug=lab_slug),
        mode=mode,
        source=source,
        status=status,
        verdict=verdict if done else "",
        score=score if done and mode == "submit" else None,
        max_score=max_score if done and mode == "submit" else None,
        regrade_of=regrade_of,
        result=result if result is not None else ({"tests": [], "plots": []} if done else None),
    )
    at = at or timezone.now()
    Submission.objects.filter(pk=sub.pk).update(
        created_at=at, queued_at=at, finished_at=at + timedelta(seconds=5) if done else None
    )
    sub.refresh_from_db()
    return sub


def read(learner, module_slug: str, count: int, *, at: datetime | None = None) -> None:
    sections = Section.objects.filter(module__slug=module_slug).order_by("order")[:count]
    SectionRead.objects.bulk_create([SectionRead(user=learner, section=section) for section in sections])
    if at:
        SectionRead.objects.filter(user=learner, section__in=sections).update(read_at=at)


def drills(module_slug: str, n: int = 4) -> list[Drill]:
    return Drill.objects.bulk_create(
        [
            Drill(module_slug=module_slug, kind="quiz", slug=f"{module_slug}-q{i}", title=f"Q{i}", data={})
            for i in range(n)
        ]
    )


def master(learner, drill_list, *, passing: bool = True) -> None:
    """Review cards as the drills app leaves them after answers (mastery counts passing cards)."""
    now = timezone.now()
    ReviewCard.objects.bulk_create(
        [
            ReviewCard(learner=learner, drill=drill, card={}, due=now, last_rating=3, passing=passing, reviewed_at=now)
            for drill in drill_list
        ]
    )
