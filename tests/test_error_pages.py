"""The 400/403/404/500 pages carry the site's header and say in words what happened."""

import pytest
from django.test import RequestFactory
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _page(response) -> str:
    html = response.content.decode()
    assert 'class="site-header"' in html and "css/site.css" in html
    return html


def test_a_missing_page_is_a_styled_404(learner_client):
    response = learner_client.get("/course/no-such-module/")
    assert response.status_code == 404
    html = _page(response)
    assert "There is no page at this address" in html and "ada" in html  # the learner stays signed in


def test_a_learner_on_an_instructor_page_gets_a_styled_403(learner_client):
    response = learner_client.get(reverse("instructor:queue"))
    assert response.status_code == 403
    html = _page(response)
    assert "This page is not open to you" in html and "signed in as ada" in html


def test_a_bad_request_is_a_styled_400(learner_client, settings):
    settings.ALLOWED_HOSTS = ["testserver"]
    response = learner_client.get("/", HTTP_HOST="bad host name")  # DisallowedHost answers 400
    assert response.status_code == 400
    assert "That request could not be read" in _page(response)


def test_a_crash_is_a_styled_500():
    """Django renders 500.html without a request context, so the page must not need one."""
    from django.views.defaults import server_error

    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "Something broke on our side" in _page(response)
