"""An address counts only once proved by a signed link; a stranger with the invited address cannot accept."""

import re
import time

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

from accounts.verification import is_verified
from cohorts.models import Membership
from cohorts.tests.factories import InvitationFactory
from instructor.tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-unusual-pass-42"


def sign_up(client, username, email, capture, address="10.1.1.1"):
    fields = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    with capture(execute=True):
        return client.post("/accounts/signup/", fields, REMOTE_ADDR=address, follow=True)


def test_the_mailed_link_proves_the_address_and_unlocks_the_invitation(django_capture_on_commit_callbacks):
    owner = factories.user("teacher")
    cohort = factories.cohort(owner, [], name="Cohort V")
    invitation = InvitationFactory(cohort=cohort, email="marie@example.com", invited_by=owner)
    client = Client()
    sign_up(client, "marie", "marie@example.com", django_capture_on_commit_callbacks)
    accept = reverse("instructor:invitation_accept", args=[invitation.pk])
    assert client.post(accept).status_code == 404  # not proved yet: the invitation does not find her
    (message,) = mail.outbox
    link = re.search(r"https?://[^/]+(/accounts/verify/\S+)", message.body).group(1)
    response = client.get(link, follow=True)
    assert "marie@example.com is confirmed" in response.content.decode()
    assert client.post(accept).status_code == 302
    assert Membership.objects.filter(cohort=cohort, learner__username="marie").exists()


def test_a_stranger_with_the_invited_address_cannot_accept(django_capture_on_commit_callbacks):
    owner = factories.user("teacher")
    cohort = factories.cohort(owner, [], name="Cohort S")
    invitation = InvitationFactory(cohort=cohort, email="victim@example.com", invited_by=owner)
    stranger = Client()
    sign_up(stranger, "stranger", "victim@example.com", django_capture_on_commit_callbacks)
    assert stranger.post(reverse("instructor:invitation_accept", args=[invitation.pk])).status_code == 404
    forged = stranger.get("/accounts/verify/not-a-signed-token/", follow=True)
    assert "not valid" in forged.content.decode()
    assert not Membership.objects.filter(cohort=cohort).exists()


def test_a_link_for_one_account_does_not_verify_another(django_capture_on_commit_callbacks):
    first, second = Client(), Client()
    sign_up(first, "one", "one@example.com", django_capture_on_commit_callbacks)
    link = re.search(r"(/accounts/verify/\S+)", mail.outbox[0].body).group(1)
    sign_up(second, "two", "two@example.com", django_capture_on_commit_callbacks)
    second.get(link)
    assert not is_verified(User.objects.get(username="two"))


@override_settings(SIGNUP_PER_ADDRESS_HOUR=3)
def test_sign_ups_are_throttled_per_address(django_capture_on_commit_callbacks):
    for number in range(3):
        sign_up(Client(), f"s{number}", f"s{number}@example.com", django_capture_on_commit_callbacks)
    refused = sign_up(Client(), "s9", "s9@example.com", django_capture_on_commit_callbacks)
    assert "Too many sign-ups from your network" in refused.content.decode()
    assert sign_up(
        Client(), "s8", "s8@example.com", django_capture_on_commit_callbacks, address="10.2.2.2"
    ).redirect_chain


def test_an_expired_link_leads_to_a_new_one_and_resends_are_spaced(django_capture_on_commit_callbacks):
    from django.core import signing

    from accounts import verification

    client = Client()
    sign_up(client, "late", "late@example.com", django_capture_on_commit_callbacks)
    user = User.objects.get(username="late")

    class FourDaysAgo(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - 4 * 24 * 3600)

    stale = FourDaysAgo(salt=verification.SALT).sign_object({"u": user.pk, "e": "late@example.com"})
    answer = client.get(f"/accounts/verify/{stale}/", follow=True)
    page = answer.content.decode()
    assert answer.redirect_chain[-1][0] == reverse("email_status")
    assert "has expired" in page and "Send me a new link" in page
    with django_capture_on_commit_callbacks(execute=True):
        resent = client.post(reverse("email_status"), follow=True)
    assert "We sent a new link to late@example.com" in resent.content.decode()
    assert len(mail.outbox) == 2
    again = client.post(reverse("email_status"), follow=True)
    assert "less than a minute ago" in again.content.decode() and len(mail.outbox) == 2
    link = re.search(r"(/accounts/verify/\S+)", mail.outbox[1].body).group(1)
    client.get(link)
    assert "late@example.com</strong> is confirmed" in client.get(reverse("email_status")).content.decode()


def test_the_join_page_says_an_unconfirmed_address_gets_no_invitations(django_capture_on_commit_callbacks):
    client = Client()
    sign_up(client, "newbie", "newbie@example.com", django_capture_on_commit_callbacks)
    page = client.get(reverse("instructor:join")).content.decode()
    assert "once you confirm that address" in page and reverse("email_status") in page
