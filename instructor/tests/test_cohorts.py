"""Cohorts: create, join with the code, add and remove learners, rotate the code."""

import pytest
from django.urls import reverse

from cohorts.models import Cohort, Membership
from instructor.tests import factories

pytestmark = pytest.mark.django_db


def test_instructor_creates_a_cohort_and_teaches_it(instructor_client, instructor):
    response = instructor_client.post(reverse("instructor:index"), {"name": "Autumn 2026"}, follow=True)
    cohort = Cohort.objects.get()
    assert list(cohort.instructors.all()) == [instructor]
    assert f"learners join with code {cohort.join_code}" in response.content.decode()


def test_learner_joins_with_the_code_in_any_case(learner_client, learner, cohort):
    Membership.objects.all().delete()
    response = learner_client.post(reverse("instructor:join"), {"code": f" {cohort.join_code.lower()} "})
    assert response.status_code == 302 and cohort.learners.filter(pk=learner.pk).exists()
    learner_client.post(reverse("instructor:join"), {"code": cohort.join_code})  # twice is fine
    assert cohort.memberships.count() == 1


def test_a_wrong_code_says_so(learner_client, cohort):
    response = learner_client.post(reverse("instructor:join"), {"code": "NOPE1234"})
    assert response.status_code == 400 and "No cohort has that join code" in response.content.decode()
    assert learner_client.get(reverse("instructor:join")).status_code == 200


def test_rotating_the_code_retires_the_old_one(instructor_client, client, cohort):
    old = cohort.join_code
    instructor_client.post(reverse("instructor:code_rotate", args=[cohort.pk]))
    cohort.refresh_from_db()
    assert cohort.join_code != old
    newcomer = factories.user("newcomer")
    client.force_login(newcomer)
    assert client.post(reverse("instructor:join"), {"code": old}).status_code == 400
    assert client.post(reverse("instructor:join"), {"code": cohort.join_code}).status_code == 302


def test_instructor_removes_a_learner_who_then_leaves_the_pages(instructor_client, cohort, learner):
    instructor_client.post(reverse("instructor:roster_remove", args=[cohort.pk, learner.pk]))
    assert not cohort.learners.exists()
    assert instructor_client.get(reverse("instructor:learner", args=[cohort.pk, learner.pk])).status_code == 404
