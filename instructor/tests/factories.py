"""Builders for instructor tests, over the apps' factories: a small course, labs, submissions at given times,
reads, mastery, cohorts."""

from datetime import datetime

from django.utils import timezone

from accounts.tests.factories import UserFactory, VerifiedEmailFactory
from cohorts.models import Cohort
from cohorts.tests.factories import CohortFactory
from course.models import Module, Section, SectionRead
from course.tests.factories import ModuleFactory, SectionFactory, SectionReadFactory
from drills.models import Drill
from drills.tests.factories import DrillFactory, ReviewCardFactory
from labs.models import Lab, Submission
from labs.tests.factories import LabFactory, SubmissionFactory

PASSWORD = "correct-horse-battery"


def user(username: str, **fields):
    """A user who signs in with PASSWORD and whose address is proved (accounts.VerifiedEmail), as after
    following the mailed link."""
    made = UserFactory(username=username, password=PASSWORD, **fields)
    VerifiedEmailFactory(user=made)
    return made


def course(n_modules: int = 2, n_sections: int = 3) -> list[Module]:
    """Modules m1..mN, each with sections and one bare lab `lab-<i>` that belongs to it."""
    modules = []
    for i in range(1, n_modules + 1):
        module = ModuleFactory(slug=f"m{i}", title=f"Module {i}", order=i, labs=[f"lab-{i}"])
        for j in range(1, n_sections + 1):
            SectionFactory(module=module, slug=f"s{j}", title=f"Section {i}.{j}", order=j)
        LabFactory(slug=f"lab-{i}", title=f"Lab {i}", module_slug=module.slug, order=i, bare=True)
        modules.append(module)
    return modules


def cohort(instructor, learners=(), name: str = "Spring") -> Cohort:
    return CohortFactory(name=name, instructors=[instructor], learners=list(learners))


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
    return SubmissionFactory(
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
        at=at or timezone.now(),
    )


def read(learner, module_slug: str, count: int, *, at: datetime | None = None) -> None:
    sections = Section.objects.filter(module__slug=module_slug).order_by("order")[:count]
    reads = [SectionReadFactory(user=learner, section=section) for section in sections]
    if at:  # read_at is set on create: moved after it
        SectionRead.objects.filter(pk__in=[row.pk for row in reads]).update(read_at=at)


def drills(module_slug: str, n: int = 4) -> list[Drill]:
    return [DrillFactory(module_slug=module_slug, slug=f"{module_slug}-q{i}", title=f"Q{i}") for i in range(n)]


def master(learner, drill_list, *, passing: bool = True) -> None:
    """Review cards as the drills app leaves them after answers (mastery counts passing cards)."""
    now = timezone.now()
    for drill in drill_list:
        ReviewCardFactory(learner=learner, drill=drill, passing=passing, reviewed_at=now)
