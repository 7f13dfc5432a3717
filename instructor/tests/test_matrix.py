"""The progress matrix: what each cell shows, sorting, filtering, idle learners, and bounded queries."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from cohorts.models import Cohort
from cohorts.tests.factories import MembershipFactory
from course.models import Section, SectionRead
from course.tests.factories import SectionReadFactory
from drills.models import ReviewCard
from drills.tests.factories import ReviewCardFactory
from instructor.tests import factories
from labs.models import Lab, Submission
from labs.tests.factories import SubmissionFactory

pytestmark = pytest.mark.django_db
MATRIX_QUERIES = 19  # session, user, groups, cohort, then the gradebook's fixed set (extensions and releases
# included): never one per learner


def rows(response) -> list[str]:
    return [row.grades.user.username for row in response.context["rows"]]


def big_cohort(instructor, n_learners: int, n_modules: int = 8) -> Cohort:
    """n learners over n_modules modules, each learner with reads, mastery and two submissions. Built by the
    factories and saved in bulk, a few INSERTs for thousands of rows."""
    factories.course(n_modules=n_modules, n_sections=4)
    users = get_user_model().objects.bulk_create([UserFactory.build(username=f"l{i:03d}") for i in range(n_learners)])
    cohort = factories.cohort(instructor, users, name="Big")
    sections = list(Section.objects.all())
    drills = [d for m in range(1, n_modules + 1) for d in factories.drills(f"m{m}", n=2)]
    labs = list(Lab.objects.all())
    now = timezone.now()
    SectionRead.objects.bulk_create([SectionReadFactory.build(user=u, section=s) for u in users for s in sections[::3]])
    ReviewCard.objects.bulk_create(
        [ReviewCardFactory.build(learner=u, drill=d, reviewed_at=now) for u in users for d in drills[::2]]
    )
    Submission.objects.bulk_create(
        [
            SubmissionFactory.build(
                learner=u,
                lab=lab,
                source="x",
                status="done",
                verdict="accepted",
                score=0.5,
                max_score=1.0,
                finished_at=now,
            )
            for u in users
            for lab in labs[:2]
        ]
    )
    return cohort


def test_matrix_of_200_learners_and_8_modules_has_bounded_queries(
    instructor_client, instructor, django_assert_num_queries
):
    cohort = big_cohort(instructor, 200)
    with django_assert_num_queries(MATRIX_QUERIES):
        response = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))
    assert response.status_code == 200 and len(rows(response)) == 200
    page = response.content.decode()
    assert page.count('data-learner="') == 200 and "read 2/4" in page


def test_query_count_does_not_grow_with_the_cohort(instructor_client, instructor, django_assert_num_queries):
    cohort = big_cohort(instructor, 3)
    with django_assert_num_queries(MATRIX_QUERIES):
        instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))


def test_a_cell_is_the_modules_progress_coloured_with_its_figures_in_the_tooltip(instructor_client, cohort, learner):
    factories.read(learner, "m1", 2)
    factories.master(learner, factories.drills("m1", n=4)[:1])
    when = timezone.now() - timedelta(days=1)
    factories.submission(learner, "lab-1", 0.8, at=when)
    response = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))
    first, second = response.context["rows"][0].cells
    assert (first.grade.sections_read, first.grade.final_mastery, first.grade.lab_pct) == (2, 0.25, 80.0)
    assert first.progress == round(100 * (2 / 3 + 0.25 + 0.8) / 3, 1) and first.heat == "heat-3"
    assert second.progress is None and second.heat == "heat-0"
    page = response.content.decode()
    summary = "1. Module 1: read 2/3, drills 25%, lab 80%"
    assert (
        f'<td class="dash-cell heat-3"><a href="/instructor/c/{cohort.pk}/learners/{learner.pk}/modules/m1/" '
        f'title="{summary}" aria-label="{summary}">57</a></td>' in page
    )
    assert '<abbr title="1. Module 1">M1</abbr>' in page and "not started" in page and "75–99%" in page


def test_one_column_per_module_whatever_their_number(instructor_client, instructor):
    cohort = big_cohort(instructor, 2, n_modules=9)
    page = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk])).content.decode()
    assert page.count('<th class="dash-module">') == 9 and page.count('<td class="dash-cell') == 18


def test_sort_by_any_column_and_filter_by_name(instructor_client, cohort, learner):
    bob, cyd = factories.user("bob", first_name="Robert"), factories.user("cyd")
    for member in (bob, cyd):
        MembershipFactory(cohort=cohort, learner=member)
    factories.submission(bob, "lab-1", 0.9)
    factories.submission(learner, "lab-1", 0.2)
    factories.read(cyd, "m2", 3)
    url = reverse("instructor:matrix", args=[cohort.pk])
    assert rows(instructor_client.get(url)) == ["ada", "bob", "cyd"]
    assert rows(instructor_client.get(url, {"sort": "m1", "dir": "desc"})) == ["bob", "ada", "cyd"]
    assert rows(instructor_client.get(url, {"sort": "m1"})) == ["cyd", "ada", "bob"]
    assert rows(instructor_client.get(url, {"sort": "m2", "dir": "desc"}))[0] == "cyd"
    assert rows(instructor_client.get(url, {"sort": "total", "dir": "desc"}))[0] == "bob"
    assert rows(instructor_client.get(url, {"sort": "bogus"})) == ["ada", "bob", "cyd"]
    assert rows(instructor_client.get(url, {"q": "ROBERT"})) == ["bob"]
    assert "No learners match" in instructor_client.get(url, {"q": "zed"}).content.decode()


def test_inactive_learners_are_highlighted(instructor_client, cohort, learner):
    busy = factories.user("busy")
    MembershipFactory(cohort=cohort, learner=busy)
    factories.submission(busy, "lab-1", 0.5, at=timezone.now() - timedelta(days=1))
    factories.read(learner, "m1", 1, at=timezone.now() - timedelta(days=10))
    url = reverse("instructor:matrix", args=[cohort.pk])
    response = instructor_client.get(url, {"inactive": "7"})
    flags = {row.grades.user.username: row.inactive for row in response.context["rows"]}
    assert flags == {"ada": True, "busy": False}
    assert response.content.decode().count('class="dash-inactive"') == 1
    assert not any(row.inactive for row in instructor_client.get(url, {"inactive": "x"}).context["rows"])
