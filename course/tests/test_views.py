"""Course home, module pages, mark-read (plain POST and htmx), anonymous access and 404s."""

import shutil

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import UserFactory
from course import selectors
from course.models import Section, SectionRead
from course.tests.factories import SectionReadFactory

from .conftest import FIXTURE_CONTENT

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def read(user, module_slug, section_slug):
    return SectionReadFactory(user=user, section=Section.objects.get(module__slug=module_slug, slug=section_slug))


def test_home_without_content_says_so(client):
    response = client.get("/course/")
    assert response.status_code == 200
    assert "The course content is not loaded yet" in response.content.decode()


def test_home_lists_modules_for_anonymous_readers(client, fixture_course):
    page = client.get("/course/").content.decode()
    assert "Alpha module" in page and "Beta module" in page
    assert page.index("Alpha module") < page.index("Beta module")
    assert "Start here" in page and 'href="/course/alpha/first-steps/"' in page
    assert "sections read" not in page and "Log in</a> to keep track" in page


def test_home_shows_progress_and_where_to_continue(learner_client, learner, fixture_course):
    page = learner_client.get("/course/").content.decode()
    assert "0 of 3 sections read (0%)" in page and "0 of 2 sections read (0%)" in page
    read(learner, "alpha", "first-steps")
    page = learner_client.get("/course/").content.decode()
    assert "1 of 3 sections read (33%)" in page
    assert "Continue where you left off" in page and 'href="/course/alpha/the-calculator/"' in page


def test_home_says_when_everything_is_read(learner_client, learner, fixture_course):
    for section in Section.objects.all():
        SectionReadFactory(user=learner, section=section)
    page = learner_client.get("/course/").content.decode()
    assert "You have read every section" in page and "3 of 3 sections read (100%)" in page


def _count_home_queries(client):
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/course/").status_code == 200
    return len(captured)


def test_home_queries_are_bounded_and_do_not_grow_with_modules(
    learner_client, learner, fixture_course, tmp_path, django_assert_max_num_queries
):
    read(learner, "alpha", "first-steps")
    with django_assert_max_num_queries(10):
        learner_client.get("/course/")
    two_modules = _count_home_queries(learner_client)
    content = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, content)
    shutil.copytree(content / "02-beta", content / "03-gamma")
    for path in (content / "03-gamma").rglob("*.yaml"):
        path.write_text(path.read_text().replace("beta", "gamma").replace("order: 2", "order: 3"))
    call_command("load_course", path=str(content), stdout=open("/dev/null", "w"))
    assert "Beta module" in learner_client.get("/course/").content.decode()
    assert 0 < _count_home_queries(learner_client) == two_modules


def test_module_page_shows_first_section_toc_summary_and_links(client, fixture_course):
    response = client.get("/course/alpha/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "<h1>First steps</h1>" in page and "Section 1 of 3" in page
    assert "What bounds this topic: KV-cache memory" in page and "<strong>cache</strong> bounds this topic" in page
    assert page.count('href="/course/alpha/') >= 3  # the table of contents
    assert 'href="#a-heading"' in page  # the section's own headings
    assert 'href="/drills/module/alpha/"' in page and 'href="/labs/kv-sizing/"' in page
    assert 'rel="next" href="/course/alpha/the-calculator/"' in page and 'rel="prev"' not in page


def test_section_page_has_previous_next_and_its_widget(client, fixture_course):
    page = client.get("/course/alpha/the-calculator/").content.decode()
    assert 'rel="prev" href="/course/alpha/first-steps/"' in page
    assert 'rel="next" href="/course/alpha/batching/"' in page
    assert 'data-widget="kv-calculator"' in page and "js/widgets/mount.js" in page
    assert "What bounds this topic" not in page


def test_last_section_points_to_the_drills(client, fixture_course):
    page = client.get("/course/alpha/batching/").content.decode()
    assert 'rel="next" href="/drills/module/alpha/"' in page


@pytest.mark.parametrize("url", ["/course/gamma/", "/course/alpha/nope/", "/course/alpha/nope/read/"])
def test_unknown_slugs_are_404(client, fixture_course, url):
    response = client.post(url) if url.endswith("read/") else client.get(url)
    assert response.status_code == 404


def test_htmx_navigation_returns_the_section_partial(client, fixture_course):
    page = client.get("/course/alpha/batching/", **HTMX).content.decode()
    assert "<html" not in page and 'id="section-panel"' in page and "<h1>Batching</h1>" in page
    assert 'id="toc"' in page and 'hx-swap-oob="true"' in page
    assert "<title>Batching · Alpha module" in page


def test_mark_read_with_a_plain_post(learner_client, learner, fixture_course):
    response = learner_client.post("/course/alpha/first-steps/read/")
    assert response.status_code == 302 and response["Location"] == "/course/alpha/first-steps/"
    page = learner_client.get(response["Location"]).content.decode()
    assert "You have read this section." in page and "Marked “First steps” as read." in page
    assert "1 of 3 sections read (33%)" in page
    learner_client.post("/course/alpha/first-steps/read/")  # twice is harmless
    assert SectionRead.objects.filter(user=learner).count() == 1


def test_mark_read_with_htmx_returns_status_toc_and_progress(learner_client, learner, fixture_course):
    response = learner_client.post("/course/alpha/the-calculator/read/", **HTMX)
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert 'id="read-status"' in page and "You have read this section." in page
    assert 'id="toc" class="toc" aria-label="Sections of this module" hx-swap-oob="true"' in page
    assert 'class="read"' in page and "1 of 3 sections read (33%)" in page
    assert SectionRead.objects.filter(user=learner, section__slug="the-calculator").exists()


def test_anonymous_can_read_but_marking_needs_login(client, fixture_course):
    assert "Mark section read" in client.get("/course/alpha/first-steps/").content.decode()
    response = client.post("/course/alpha/first-steps/read/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/course/alpha/first-steps/"
    htmx = client.post("/course/alpha/first-steps/read/", **HTMX)
    assert htmx.status_code == 200 and "Log in to keep track of what you have read." in htmx.content.decode()
    assert not SectionRead.objects.exists()


def test_mark_read_refuses_get(learner_client, fixture_course):
    assert learner_client.get("/course/alpha/first-steps/read/").status_code == 405


def test_selectors_for_other_apps(learner, fixture_course):
    other = UserFactory(username="bob")
    read(learner, "alpha", "first-steps")
    latest = read(learner, "beta", "ring")
    read(other, "alpha", "batching")
    assert selectors.section_url("alpha", "batching") == "/course/alpha/batching/"
    assert selectors.module_by_slug("beta").title == "Beta module" and selectors.module_by_slug("x") is None
    assert [m.slug for m in selectors.module_list()] == ["alpha", "beta"]
    assert selectors.progress_by_module(learner) == {
        "alpha": {"read": 1, "total": 3, "percent": 33},
        "beta": {"read": 1, "total": 2, "percent": 50},
    }
    assert selectors.sections_read_counts([learner.id, other.id]) == {
        (learner.id, "alpha"): 1,
        (learner.id, "beta"): 1,
        (other.id, "alpha"): 1,
    }
    assert selectors.last_read_at([learner.id])[learner.id] == latest.read_at
