"""Fixtures for the course tests: the small fixture course and the real content directory."""

from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from testing.browser import sign_in

FIXTURE_CONTENT = Path(__file__).resolve().parent / "fixture_content"
REAL_CONTENT = Path(__file__).resolve().parent.parent / "content"


def real_module_folders() -> list[Path]:
    return sorted(p for p in REAL_CONTENT.glob("[0-9][0-9]-*") if p.is_dir())


@pytest.fixture
def fixture_course(db):
    """The two-module fixture course, loaded through the management command."""
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    from course.models import Module

    return list(Module.objects.order_by("order"))


@pytest.fixture
def broken_content(tmp_path):
    """A writable copy of the fixture course for tests that damage one file."""
    import shutil

    target = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, target)
    return target


# Browser tests (pytest.mark.usefixtures("no_script_errors") in their pytestmark)
@pytest.fixture
def course_site(live_server):
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    return live_server.url


@pytest.fixture
def no_script_errors(page):
    """A browser test using it also fails on an uncaught script error, a console error or an unexpected failed request."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    expected = ("/favicon.ico",)  # bad calculator input is refused in the page, never sent for a 400

    def on_response(response):
        if response.status >= 400 and not any(part in response.url for part in expected):
            errors.append(f"{response.status} {response.url}")

    page.on("response", on_response)
    yield
    assert not errors, errors


@pytest.fixture
def signed_in(page, course_site):
    from accounts.tests.factories import UserFactory

    user = UserFactory(username="lin")
    sign_in(page.context, user, course_site)
    return page


def widget(page, name):
    root = page.locator(f'[data-widget="{name}"]')
    expect(root).to_have_attribute("data-mounted", "ready")
    return root
