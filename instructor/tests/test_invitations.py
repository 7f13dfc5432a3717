"""Joining takes the learner's consent: a code they type, or an invitation they accept; no address oracle."""

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from cohorts.models import Invitation, Membership
from instructor.tests import factories

pytestmark = pytest.mark.django_db


def invite(client, cohort, email, capture):
    with capture(execute=True):
        return client.post(reverse("instructor:roster_invite", args=[cohort.pk]), {"email": email}, follow=True)


def flash(response) -> str:
    return " ".join(str(message) for message in response.context["messages"])


def test_inviting_enrols_nobody_and_answers_the_same_for_any_address(
    instructor_client, cohort, django_capture_on_commit_callbacks
):
    factories.user("bob")
    known = invite(instructor_client, cohort, "Bob@Example.com", django_capture_on_commit_callbacks)
    unknown = invite(instructor_client, cohort, "ghost@example.com", django_capture_on_commit_callbacks)
    assert known.status_code == unknown.status_code == 200
    assert flash(known).replace("bob@example.com", "X") == flash(unknown).replace("ghost@example.com", "X")
    assert "Invitation sent to bob@example.com" in flash(known)
    assert not cohort.learners.filter(username="bob").exists()
    assert sorted(m.to[0] for m in mail.outbox) == ["bob@example.com", "ghost@example.com"]
    assert "/instructor/join/" in mail.outbox[0].body
    page = instructor_client.get(reverse("instructor:roster", args=[cohort.pk])).content.decode()
    assert "bob@example.com" in page and "ghost@example.com" in page  # both pending on the roster


def test_inviting_twice_keeps_one_pending_invitation(instructor_client, cohort, django_capture_on_commit_callbacks):
    invite(instructor_client, cohort, "bob@example.com", django_capture_on_commit_callbacks)
    invite(instructor_client, cohort, "BOB@example.com", django_capture_on_commit_callbacks)
    assert Invitation.objects.filter(status="pending").count() == 1 and len(mail.outbox) == 1


def test_the_learner_sees_the_invitation_on_signing_in_and_accepts(
    instructor_client, cohort, django_capture_on_commit_callbacks
):
    client = Client()
    bob = factories.user("bob")
    sub = factories.submission(bob, "lab-1", 0.5)
    invite(instructor_client, cohort, "bob@example.com", django_capture_on_commit_callbacks)
    submission_page = reverse("instructor:submission", args=[cohort.pk, sub.pk])
    assert instructor_client.get(submission_page).status_code == 404  # not before consent

    response = client.post("/accounts/login/", {"username": "bob", "password": factories.PASSWORD}, follow=True)
    assert "1 cohort invitation waiting for you" in response.content.decode()
    page = client.get(reverse("instructor:join")).content.decode()
    assert cohort.name in page and "Accept" in page
    invitation = Invitation.objects.get()
    assert client.get(reverse("instructor:invitation_accept", args=[invitation.pk])).status_code == 405
    response = client.post(reverse("instructor:invitation_accept", args=[invitation.pk]), follow=True)
    assert f"You joined {cohort.name}." in response.content.decode()
    assert Membership.objects.filter(cohort=cohort, learner=bob).exists()
    assert instructor_client.get(submission_page).status_code == 200
    assert instructor_client.get(reverse("labs:submission", args=[sub.pk])).status_code == 200
    again = client.post(reverse("instructor:invitation_accept", args=[invitation.pk]))
    assert again.status_code == 404  # answered already


def test_declining_leaves_the_learner_out(instructor_client, cohort, django_capture_on_commit_callbacks):
    client = Client()
    bob = factories.user("bob")
    invite(instructor_client, cohort, "bob@example.com", django_capture_on_commit_callbacks)
    client.force_login(bob)
    response = client.post(reverse("instructor:invitation_decline", args=[Invitation.objects.get().pk]), follow=True)
    assert f"You declined the invitation to {cohort.name}." in response.content.decode()
    assert not Membership.objects.filter(learner=bob).exists()
    assert Invitation.objects.get().status == "declined"


def test_nobody_else_can_accept_an_invitation(instructor_client, cohort, django_capture_on_commit_callbacks):
    client = Client()
    invite(instructor_client, cohort, "bob@example.com", django_capture_on_commit_callbacks)
    mallory = factories.user("mallory")
    client.force_login(mallory)
    invitation = Invitation.objects.get()
    assert cohort.name not in client.get(reverse("instructor:join")).content.decode()
    assert client.post(reverse("instructor:invitation_accept", args=[invitation.pk])).status_code == 404
    assert not Membership.objects.filter(learner=mallory).exists()
    assert Invitation.objects.get().status == "pending"


def test_a_withdrawn_invitation_cannot_be_accepted(
    instructor_client, cohort, other_instructor, django_capture_on_commit_callbacks
):
    client = Client()
    bob = factories.user("bob")
    invite(instructor_client, cohort, "bob@example.com", django_capture_on_commit_callbacks)
    invitation = Invitation.objects.get()
    client.force_login(other_instructor)  # teaches another cohort: this one is not theirs to change
    assert client.post(reverse("instructor:invitation_withdraw", args=[cohort.pk, invitation.pk])).status_code == 404
    response = instructor_client.post(
        reverse("instructor:invitation_withdraw", args=[cohort.pk, invitation.pk]), follow=True
    )
    assert "Invitation withdrawn." in response.content.decode()
    client.force_login(bob)
    assert client.post(reverse("instructor:invitation_accept", args=[invitation.pk])).status_code == 404
    assert not Membership.objects.filter(learner=bob).exists()


def test_the_join_link_fills_the_code_and_joins_only_on_a_post(instructor_client, cohort):
    client = Client()
    roster = instructor_client.get(reverse("instructor:roster", args=[cohort.pk])).content.decode()
    link = re.search(r"http://testserver(/instructor/join/\?code=\w+)", roster).group(1)
    bob = factories.user("bob")
    client.force_login(bob)
    page = client.get(link).content.decode()
    assert f'value="{cohort.join_code}"' in page and not Membership.objects.filter(learner=bob).exists()
    assert client.post(reverse("instructor:join"), {"code": cohort.join_code}).status_code == 302
    assert Membership.objects.filter(cohort=cohort, learner=bob).exists()
