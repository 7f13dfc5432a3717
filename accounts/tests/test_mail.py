"""Mail goes to an SMTP server (EMAIL_URL) or a private outbox; never a log. Sent through a real SMTP server."""

import re
import socket
import stat
from email import message_from_bytes
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.core.mail import send_mail
from django.test import override_settings

from config.settings.email_url import OUTBOX_BACKEND, email_settings

pytestmark = pytest.mark.django_db


def test_email_url_names_smtp_with_tls_and_credentials():
    got = email_settings("smtp+tls://course%40school.org:p%3Ass@smtp.school.org:587", var_dir=Path("/x"))
    assert got["EMAIL_BACKEND"].endswith("smtp.EmailBackend")
    assert (got["EMAIL_HOST"], got["EMAIL_PORT"], got["EMAIL_USE_TLS"], got["EMAIL_USE_SSL"]) == (
        "smtp.school.org",
        587,
        True,
        False,
    )
    assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"]) == ("course@school.org", "p:ss")
    assert email_settings("smtp+ssl://mail.example.org", var_dir=Path("/x"))["EMAIL_PORT"] == 465


def test_email_url_defaults_to_the_outbox_and_refuses_the_console():
    assert email_settings("", var_dir=Path("/v"))["EMAIL_BACKEND"] == OUTBOX_BACKEND
    assert email_settings("outbox", var_dir=Path("/v"))["EMAIL_FILE_PATH"] == "/v/outbox"
    for bad in ("console", "smtp://", "http://mail.example.org"):
        with pytest.raises(ValueError):
            email_settings(bad, var_dir=Path("/v"))


def test_the_outbox_keeps_mail_private_to_the_site_user(tmp_path):
    with override_settings(EMAIL_BACKEND=OUTBOX_BACKEND, EMAIL_FILE_PATH=str(tmp_path / "outbox")):
        send_mail("Reset", "link: http://x/reset/abc/", None, ["ada@example.com"])
    folder = tmp_path / "outbox"
    (written,) = folder.iterdir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert "http://x/reset/abc/" in written.read_text()


class Inbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.rcpt_tos, message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture
def smtp_server():
    inbox = Inbox()
    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        smtp = email_settings(f"smtp://127.0.0.1:{port}", var_dir=Path("."))
        with override_settings(**smtp):
            yield inbox
    finally:
        controller.stop()


def test_a_reset_link_arrives_by_smtp_and_sets_the_password(client, learner, smtp_server):
    client.post("/accounts/password_reset/", {"email": learner.email})
    ((to, message),) = smtp_server.messages
    assert to == [learner.email]
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+)", message.get_payload(decode=True).decode()).group(1)
    form_page = client.get(link, follow=True)
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "smtp-reset-pass-long-9", "new_password2": "smtp-reset-pass-long-9"},
        follow=True,
    )
    assert b"Password set" in response.content
    learner.refresh_from_db()
    assert learner.check_password("smtp-reset-pass-long-9")


def test_reset_answers_the_same_for_an_unknown_address(client, learner, smtp_server):
    known = client.post("/accounts/password_reset/", {"email": learner.email})
    unknown = client.post("/accounts/password_reset/", {"email": "nobody@example.com"})
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [to for to, _ in smtp_server.messages] == [[learner.email]]


def test_an_invitation_arrives_by_smtp_and_its_link_opens_the_join_page(
    smtp_server, django_capture_on_commit_callbacks
):
    from django.test import Client
    from django.urls import reverse

    from accounts.roles import instructor_group
    from instructor.tests import factories

    teacher, bob = factories.user("teacher"), factories.user("bob")
    teacher.groups.add(instructor_group())
    cohort = factories.cohort(teacher, [], name="Cohort M")
    teaching = Client()
    teaching.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        teaching.post(reverse("instructor:roster_invite", args=[cohort.pk]), {"email": bob.email})
    ((to, message),) = smtp_server.messages
    assert to == [bob.email]
    link = re.search(r"https?://[^/]+(/\S+)", message.get_payload(decode=True).decode()).group(1)
    learner = Client()
    learner.force_login(bob)
    page = learner.get(link).content.decode()
    assert "Cohort M" in page and "Accept" in page
