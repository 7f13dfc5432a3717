"""Sign up, log in, log out, password change and reset; roles in the navigation."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db


def test_signup_creates_a_learner_and_logs_in(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "linus",
            "email": "linus@example.com",
            "password1": "a-long-unusual-pass-42",
            "password2": "a-long-unusual-pass-42",
        },
        follow=True,
    )

    assert response.status_code == 200
    assert b"Welcome, linus" in response.content
    user = User.objects.get(username="linus")
    assert not user.groups.exists()  # a learner by default
    assert b"Dashboard" not in response.content


def test_signup_rejects_mismatched_passwords_with_a_form_error(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "linus",
            "email": "linus@example.com",
            "password1": "a-long-unusual-pass-42",
            "password2": "something-else-42",
        },
    )
    assert response.status_code == 200
    assert b"didn" in response.content  # "The two password fields didn't match."
    assert not User.objects.filter(username="linus").exists()


def test_signup_answers_the_same_whether_or_not_the_address_has_an_account(client, learner):
    def sign_up(username, email):
        fields = {"username": username, "email": email, "password1": "a-long-pass-42x", "password2": "a-long-pass-42x"}
        response = Client().post("/accounts/signup/", fields, follow=True)
        said = " ".join(str(m) for m in response.context["messages"])
        return response.status_code, response.redirect_chain, said.replace(email.lower(), "@").replace(username, "NAME")

    assert sign_up("other", learner.email.upper()) == sign_up("fresh", "fresh@example.com")
    assert "already exists" not in str(sign_up("third", learner.email))


def test_login_and_logout(client, learner):
    response = client.post("/accounts/login/", {"username": "ada", "password": "correct-horse-battery"}, follow=True)
    assert b"ada" in response.content and b"Log out" in response.content

    response = client.post("/accounts/logout/", follow=True)
    assert b"Log in" in response.content
    assert b"Log out" not in response.content


def test_wrong_password_shows_a_message(client, learner):
    response = client.post("/accounts/login/", {"username": "ada", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_password_change(learner_client, learner):
    response = learner_client.post(
        "/accounts/password_change/",
        {
            "old_password": "correct-horse-battery",
            "new_password1": "an-even-longer-pass-77",
            "new_password2": "an-even-longer-pass-77",
        },
        follow=True,
    )
    assert b"Password changed" in response.content
    learner.refresh_from_db()
    assert learner.check_password("an-even-longer-pass-77")


def test_password_reset_by_email(client, learner):
    client.post("/accounts/password_reset/", {"email": learner.email})
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+)", mail.outbox[0].body).group(1)

    form_page = client.get(link, follow=True)
    assert b"Set a new password" in form_page.content
    response = client.post(
        form_page.redirect_chain[-1][0],
        {
            "new_password1": "reset-pass-that-is-long-9",
            "new_password2": "reset-pass-that-is-long-9",
        },
        follow=True,
    )
    assert b"Password set" in response.content
    learner.refresh_from_db()
    assert learner.check_password("reset-pass-that-is-long-9")


def test_instructors_see_the_dashboard_link(instructor_client):
    response = instructor_client.get("/")
    assert b"Dashboard" in response.content


def test_learners_get_403_on_the_dashboard(learner_client):
    assert learner_client.get("/instructor/").status_code == 403


def test_anonymous_visitors_are_sent_to_log_in_for_the_dashboard(client):
    response = client.get("/instructor/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_pages_serve_htmx_and_css_from_static(client):
    body = client.get("/").content.decode()
    assert "/static/vendor/htmx.min.js" in body
    assert "/static/css/site.css" in body
    assert "cdn" not in body.lower()


def test_demo_users_command_is_safe_to_run_twice():
    from django.core.management import call_command

    call_command("create_demo_users")
    call_command("create_demo_users")
    assert User.objects.filter(username__in=["instructor", "learner"]).count() == 2
    assert User.objects.get(username="instructor").groups.filter(name="instructors").exists()
