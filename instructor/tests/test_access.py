"""Every view and action: learners get 403, instructors of another cohort 404, ids never cross cohorts."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from cohorts.models import Extension, GradeRelease, Membership, ScoreOverride
from cohorts.tests.factories import CohortLabFactory, ExtensionFactory, ScoreOverrideFactory
from instructor.tests import factories
from labs.models import Submission

pytestmark = pytest.mark.django_db


def cohort_urls(cohort, learner_id, submission_id, override_id, extension_id):
    """(method, url) of every cohort-scoped view and action."""
    c = cohort.pk
    return [
        ("get", reverse("instructor:matrix", args=[c])),
        ("get", reverse("instructor:learner", args=[c, learner_id])),
        ("get", reverse("instructor:roster", args=[c])),
        ("post", reverse("instructor:roster_invite", args=[c])),
        ("post", reverse("instructor:roster_remove", args=[c, learner_id])),
        ("post", reverse("instructor:code_rotate", args=[c])),
        ("post", reverse("instructor:lab_terms_set", args=[c])),
        ("post", reverse("instructor:weight_set", args=[c])),
        ("get", reverse("instructor:lab", args=[c, "lab-1"])),
        ("post", reverse("instructor:lab_regrade", args=[c, "lab-1"])),
        ("get", reverse("instructor:lab_release", args=[c, "lab-1"])),
        ("post", reverse("instructor:lab_release", args=[c, "lab-1"])),
        ("post", reverse("instructor:extension_set", args=[c, learner_id])),
        ("post", reverse("instructor:extension_remove", args=[c, extension_id])),
        ("get", reverse("instructor:submission", args=[c, submission_id])),
        ("post", reverse("instructor:submission_regrade", args=[c, submission_id])),
        ("get", reverse("instructor:overrides", args=[c])),
        ("post", reverse("instructor:overrides", args=[c])),
        ("post", reverse("instructor:override_undo", args=[c, override_id])),
        ("get", reverse("instructor:export", args=[c])),
    ]


@pytest.fixture
def scene(cohort, learner, instructor):
    sub = factories.submission(learner, "lab-1", 0.5)
    override = ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="lab",
        target_slug="lab-1",
        score=0.9,
        max_score=1.0,
        reason="viva",
        created_by=instructor,
    )
    CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=timezone.now())
    extension = ExtensionFactory(
        cohort=cohort,
        learner=learner,
        lab_slug="lab-1",
        due_at=timezone.now() + timedelta(days=3),
        reason="ill",
        created_by=instructor,
    )
    return cohort_urls(cohort, learner.pk, sub.pk, override.pk, extension.pk)


def test_anonymous_is_sent_to_log_in(client, scene):
    for method, url in scene + [
        ("get", reverse("instructor:index")),
        ("get", reverse("instructor:queue")),
        ("get", reverse("instructor:join")),
    ]:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and "/accounts/login" in response["Location"], url


def test_learner_gets_403_everywhere(learner_client, scene):
    for method, url in scene + [
        ("get", reverse("instructor:index")),
        ("post", reverse("instructor:index")),
        ("get", reverse("instructor:queue")),
    ]:
        assert getattr(learner_client, method)(url).status_code == 403, url
    assert Submission.objects.count() == 1 and ScoreOverride.objects.get().undone_at is None
    assert Extension.objects.count() == 1 and not GradeRelease.objects.exists()


def test_instructor_of_another_cohort_gets_404_and_changes_nothing(client, other_instructor, scene, cohort):
    client.force_login(other_instructor)
    code = cohort.join_code
    for method, url in scene:
        assert getattr(client, method)(url, {"email": "hopper@example.com", "drill_weight": 5}).status_code == 404, url
    cohort.refresh_from_db()
    assert cohort.join_code == code and cohort.drill_weight == 0
    assert Submission.objects.count() == 1 and Membership.objects.filter(cohort=cohort).count() == 1
    assert ScoreOverride.objects.get().undone_at is None
    assert Extension.objects.get().reason == "ill" and not GradeRelease.objects.exists()


def test_superuser_reaches_every_cohort(client, scene, cohort, other_cohort):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    index = client.get(reverse("instructor:index")).content.decode()
    assert cohort.join_code in index and other_cohort.join_code in index
    for method, url in scene:
        if method == "get":
            assert client.get(url).status_code == 200, url


def test_index_lists_only_my_cohorts(instructor_client, cohort, other_cohort):
    page = instructor_client.get(reverse("instructor:index")).content.decode()
    assert cohort.name in page and other_cohort.join_code not in page


def test_ids_of_another_cohort_do_not_reach_it(instructor_client, cohort, other_cohort):
    outsider = other_cohort.learners.get()
    theirs = Submission.objects.get(learner=outsider)
    c = cohort.pk
    assert instructor_client.get(reverse("instructor:learner", args=[c, outsider.pk])).status_code == 404
    assert instructor_client.get(reverse("instructor:submission", args=[c, theirs.pk])).status_code == 404
    response = instructor_client.post(reverse("instructor:submission_regrade", args=[c, theirs.pk]), follow=True)
    assert "No such submission in this cohort." in response.content.decode()
    assert not Submission.objects.filter(regrade_of=theirs).exists()
    response = instructor_client.post(
        reverse("instructor:overrides", args=[c]),
        {"learner": outsider.pk, "kind": "lab", "target_slug": "lab-1", "score": 1, "reason": "sneaky"},
    )
    assert response.status_code == 400 and "That learner is not in this cohort." in response.content.decode()
    assert not ScoreOverride.objects.exists()
    response = instructor_client.post(reverse("instructor:roster_remove", args=[c, outsider.pk]), follow=True)
    assert "That learner is not in this cohort." in response.content.decode()
    assert Membership.objects.filter(cohort=other_cohort, learner=outsider).exists()


def test_undo_cannot_reach_an_override_of_another_cohort(instructor_client, cohort, other_cohort, other_instructor):
    outsider = other_cohort.learners.get()
    theirs = ScoreOverrideFactory(
        cohort=other_cohort,
        learner=outsider,
        kind="lab",
        target_slug="lab-1",
        score=1,
        max_score=1,
        reason="r",
        created_by=other_instructor,
    )
    response = instructor_client.post(reverse("instructor:override_undo", args=[cohort.pk, theirs.pk]), follow=True)
    assert "No such override in this cohort." in response.content.decode()
    theirs.refresh_from_db()
    assert theirs.undone_at is None


def test_regrade_all_only_touches_my_learners(
    instructor_client, cohort, other_cohort, learner, django_capture_on_commit_callbacks
):
    mine = factories.submission(learner, "lab-1", 0.3)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        instructor_client.post(reverse("instructor:lab_regrade", args=[cohort.pk, "lab-1"]))
    regrades = Submission.objects.filter(regrade_of__isnull=False)
    assert [r.regrade_of_id for r in regrades] == [mine.pk] and len(callbacks) == 1
