"""After logging in, instructors land on their dashboard and learners on the course; `next` wins for both."""

import pytest

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"


def log_in(client, username: str, next_url: str = ""):
    url = "/accounts/login/" + (f"?next={next_url}" if next_url else "")
    return client.post(url, {"username": username, "password": PASSWORD})


def test_an_instructor_lands_on_the_dashboard(client, instructor):
    assert log_in(client, "grace")["Location"] == "/instructor/"


def test_a_learner_lands_on_the_course(client, learner):
    assert log_in(client, "ada")["Location"] == "/course/"


def test_a_next_link_still_wins(client, instructor):
    assert log_in(client, "grace", "/labs/")["Location"] == "/labs/"


def test_join_a_cohort_is_offered_to_learners_only(client, learner, instructor):
    client.force_login(learner)
    assert "Join a cohort" in client.get("/course/").content.decode()
    client.force_login(instructor)
    assert "Join a cohort" not in client.get("/instructor/").content.decode()
