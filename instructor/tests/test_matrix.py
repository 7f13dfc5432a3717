"""The progress matrix: what each cell shows, sorting, filtering, idle learners, and bounded queries."""
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from course.models import Section, SectionRead
from drills.models import ReviewCard
from instructor.models import Cohort, Membership
from instructor.tests import factories
from labs.models import Lab, Submission

pytestmark = pytest.mark.django_db
MATRIX_QUERIES = 17  # session, user, groups, cohort, then the gradebook's fixed set: never one per learner


def rows(response) -> list[str]:
    return [row.grades.user.username for row in response.context["rows"]]


def big_cohort(instructor, n_learners: int, n_modules: int = 8) -> Cohort:
    """n learners over n_modules modules, each learner with reads, mastery and two submissions."""
    factories.course(n_modules=n_modules, n_sections=4)
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"l{i:03d}", email=f"l{i:03d}@example.com") for i in range(n_learners)])
    cohort = factories.cohort(instructor, users, name="Big")
    sections = list(Section.objects.all())
    drills = [d for m in range(1, n_modules + 1) for d in factories.drills(f"m{m}", n=2)]
    labs = list(Lab.objects.all())
    now = timezone.now()
    SectionRead.objects.bulk_create([SectionRead(user=u, section=s) for u in users for s in sections[::3]])
    ReviewCard.objects.bulk_create([ReviewCard(learner=u, drill=d, card={}, due=now, last_rating=3, passing=True,
                                               reviewed_at=now) for u in users for d in drills[::2]])
    Submission.objects.bulk_create([Submission(learner=u, lab=lab, mode="submit", source="x", status="done",
                                               verdict="accepted", score=0.5, max_score=1.0, finished_at=now)
                                    for u in users for lab in labs[:2]])
    return cohort


def test_matrix_of_200_learners_and_8_modules_has_bounded_queries(instructor_client, instructor,
                                                                  django_assert_num_queries):
    cohort = big_cohort(instructor, 200)
    with django_assert_num_queries(MATRIX_QUERIES):
        response = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))
    assert response.status_code == 200 and len(rows(response)) == 200
    page = response.content.decode()
    assert page.count('data-learner="') == 200 and "2/4" in page


def test_query_count_does_not_grow_with_the_cohort(instructor_client, instructor, django_assert_num_queries):
    cohort = big_cohort(instructor, 3)
    with django_assert_num_queries(MATRIX_QUERIES):
        instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))


def test_cells_show_reads_mastery_lab_score_and_last_activity(instructor_client, cohort, learner):
    factories.read(learner, "m1", 2)
    factories.master(learner, factories.drills("m1", n=4)[:1])
    when = timezone.now() - timedelta(days=1)
    factories.submission(learner, "lab-1", 0.8, at=when)
    response = instructor_client.get(reverse("instructor:matrix", args=[cohort.pk]))
    row = response.context["rows"][0]
    assert row.cells[0] == (2, 3, 0.25, 80.0) and row.cells[1] == (0, 3, 0.0, None)
    page = response.content.decode()
    assert '<td class="num dash-read">2/3</td><td class="num">25</td><td class="num dash-lab">80</td>' in page


def test_sort_by_any_column_and_filter_by_name(instructor_client, cohort, learner):
    bob, cyd = factories.user("bob", first_name="Robert"), factories.user("cyd")
    Membership.objects.bulk_create([Membership(cohort=cohort, learner=u) for u in (bob, cyd)])
    factories.submission(bob, "lab-1", 0.9)
    factories.submission(learner, "lab-1", 0.2)
    factories.read(cyd, "m2", 3)
    url = reverse("instructor:matrix", args=[cohort.pk])
    assert rows(instructor_client.get(url)) == ["ada", "bob", "cyd"]
    assert rows(instructor_client.get(url, {"sort": "m1:lab", "dir": "desc"})) == ["bob", "ada", "cyd"]
    assert rows(instructor_client.get(url, {"sort": "m1:lab"})) == ["cyd", "ada", "bob"]
    assert rows(instructor_client.get(url, {"sort": "m2:read", "dir": "desc"}))[0] == "cyd"
    assert rows(instructor_client.get(url, {"sort": "total", "dir": "desc"}))[0] == "bob"
    assert rows(instructor_client.get(url, {"sort": "bogus"})) == ["ada", "bob", "cyd"]
    assert rows(instructor_client.get(url, {"q": "ROBERT"})) == ["bob"]
    assert "No learners match" in instructor_client.get(url, {"q": "zed"}).content.decode()


def test_inactive_learners_are_highlighted(instructor_client, cohort, learner):
    busy = factories.user("busy")
    Membership.objects.create(cohort=cohort, learner=busy)
    factories.submission(busy, "lab-1", 0.5, at=timezone.now() - timedelta(days=1))
    factories.read(learner, "m1", 1, at=timezone.now() - timedelta(days=10))
    url = reverse("instructor:matrix", args=[cohort.pk])
    response = instructor_client.get(url, {"inactive": "7"})
    flags = {row.grades.user.username: row.inactive for row in response.context["rows"]}
    assert flags == {"ada": True, "busy": False}
    assert response.content.decode().count('class="dash-inactive"') == 1
    assert not any(row.inactive for row in instructor_client.get(url, {"inactive": "x"}).context["rows"])
