"""A small site with two cohorts, for tests that walk every URL: who owns what, and each URL's arguments.

Learner A (`ada`) is in cohort A, taught by `own`; learner B (`bea`) is in cohort B, taught by `other`.
Everything of A's carries a marker that nobody but A and `own` may ever be shown.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from accounts.roles import instructor_group
from cohorts.tests.factories import CohortLabFactory, ExtensionFactory, InvitationFactory, ScoreOverrideFactory
from drills.tests.factories import MockInterviewFactory, load_fixture
from experiments.tests.factories import ExperimentFactory
from instructor.tests import factories
from labs.tests.factories import LabFactory, RegradeRequestFactory

MARKERS = ("SECRET-SOURCE-OF-ADA", "ada-private@example.com", "REASON-ABOUT-ADA")
ROLES = ("anonymous", "learner_b", "other_instructor", "learner_a", "own_instructor")
SKIPPED_NAMESPACES = {"admin"}  # Django's own admin: staff only, tested by Django


@dataclass
class World:
    users: dict
    kwargs_by_name: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)

    def refreshed(self) -> "World":
        for user in self.users.values():
            user.refresh_from_db()
        return self

    def kwargs(self, name: str, pattern_keys: list[str]) -> dict:
        chosen = {**self.defaults, **self.kwargs_by_name.get(name, {})}
        return {key: chosen[key] for key in pattern_keys}


def build() -> World:
    factories.course(n_modules=2, n_sections=2)
    drills = load_fixture()
    LabFactory(slug="paged-attention", title="Paged attention", module_slug="m1", order=9, bare=True)  # has a board
    ada = factories.user("ada", email=MARKERS[1])
    bea = factories.user("bea")
    own, other = factories.user("own"), factories.user("other")
    for teacher in (own, other):
        teacher.groups.add(instructor_group())
    cohort_a = factories.cohort(own, [ada], name="Cohort A")
    factories.cohort(other, [bea], name="Cohort B")
    cohort_c = factories.cohort(own, [], name="Cohort C")
    sub_a = factories.submission(ada, "lab-1", 0.5, source=f"# {MARKERS[0]}\nx = 1\n")
    factories.submission(bea, "lab-1", 0.7, source="# bea's own code\n")
    override = ScoreOverrideFactory(
        cohort=cohort_a,
        learner=ada,
        kind="lab",
        target_slug="lab-1",
        score=0.9,
        max_score=1.0,
        reason=MARKERS[2],
        created_by=own,
    )
    due = timezone.now() + timedelta(days=7)
    CohortLabFactory(cohort=cohort_a, lab_slug="lab-1", due_at=due)
    extension = ExtensionFactory(
        cohort=cohort_a,
        learner=ada,
        lab_slug="lab-1",
        due_at=due + timedelta(days=2),
        reason=MARKERS[2],
        created_by=own,
    )
    to_ada = InvitationFactory(cohort=cohort_c, email=MARKERS[1], invited_by=own)
    to_newcomer = InvitationFactory(cohort=cohort_a, email="newcomer@example.com", invited_by=own)
    mock = MockInterviewFactory(
        learner=ada,
        minutes=10,
        module_slugs=[drills["card"].module_slug],
        drill_ids=[drills["quiz"].pk, drills["card"].pk],
    )
    card = drills["card"]
    regrade_request = RegradeRequestFactory(submission=sub_a, learner=ada, reason="Please look again at it.")
    experiment = ExperimentFactory(owner=ada)
    world = World(users={"learner_a": ada, "learner_b": bea, "own_instructor": own, "other_instructor": other})
    world.defaults = {
        "cohort_id": cohort_a.pk,
        "learner_id": ada.pk,
        "submission_id": sub_a.pk,
        "override_id": override.pk,
        "extension_id": extension.pk,
        "request_id": regrade_request.pk,
        "invitation_id": to_newcomer.pk,
        "lab_slug": "lab-1",
        "slug": "lab-1",
        "pk": sub_a.pk,
        "module_slug": "m1",
        "section_slug": "s1",
        "kind": card.kind,
        "uidb64": "MQ",
        "token": "set-password",
    }
    world.kwargs_by_name = {
        **{
            f"drills:{name}": {"pk": mock.pk}
            for name in ("mock_run", "mock_answer", "mock_rate", "mock_finish", "mock_report")
        },
        **{
            f"drills:{name}": {"module_slug": card.module_slug, "slug": card.slug}
            for name in ("drill", "answer", "rate", "module", "undo")
        },
        "experiments:detail": {"pk": experiment.pk},
        "labs:leaderboard": {"slug": "paged-attention"},
        "labs:leaderboard_hide": {"slug": "paged-attention"},
        "instructor:invitation_accept": {"invitation_id": to_ada.pk},
        "instructor:invitation_decline": {"invitation_id": to_ada.pk},
    }
    return world


def named_patterns() -> dict[str, list[str]]:
    """{full name: route keys} of every named URL pattern outside SKIPPED_NAMESPACES (the first of a name wins,
    as in `reverse`)."""
    found: dict[str, list[str]] = {}
    for name, keys in url_patterns():
        found.setdefault(name, keys)
    return found


def url_patterns(resolver: URLResolver | None = None, prefix: str = "", namespace: str = ""):
    """(full name, route keys) of every named URL pattern outside SKIPPED_NAMESPACES."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}:{entry.namespace}".strip(":") if entry.namespace else namespace
            if entry.namespace in SKIPPED_NAMESPACES:
                continue
            yield from url_patterns(entry, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern) and entry.name:
            name = f"{namespace}:{entry.name}" if namespace else entry.name
            keys = list(entry.pattern.converters) if hasattr(entry.pattern, "converters") else []
            outer = _route_keys(prefix)
            yield name, outer + [key for key in keys if key not in outer]


def _route_keys(route: str) -> list[str]:
    import re

    return re.findall(r"<(?:\w+:)?(\w+)>", route)
