"""At a 390×844 phone viewport, every kind of page fits the screen: the page never scrolls sideways.

Wide code blocks and tables must scroll inside their own box; the layout columns must not grow to fit them.
Runs on the real course content, where the widest code and tables live.
"""

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from course.models import Section
from drills import services as drill_services
from drills.models import Drill
from instructor.tests import factories
from labs.models import Lab

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
WIDE_SOURCE = (
    "def schedule(waiting, running, budget):  # " + "a comment long enough to need scrolling " * 4 + "\n    return []\n"
)


@pytest.fixture
def course_site(live_server, learner, instructor):
    quiet = open("/dev/null", "w")
    call_command("load_course", stdout=quiet)
    call_command("load_labs", stdout=quiet)
    cohort = factories.cohort(instructor, [learner], name="Spring cohort")
    lab = Lab.objects.order_by("order").first()
    submission = factories.submission(
        learner,
        lab.slug,
        0.5,
        source=WIDE_SOURCE,
        result={"tests": [{"name": "decode_step_" * 8, "passed": False}], "plots": []},
    )
    drills = Drill.objects.filter(retired=False)
    chosen = sorted({d.module_slug for d in drills if d.kind in ("card", "quiz")})[:2]
    mock = drill_services.mock_start(learner=learner, minutes=10, module_slugs=chosen)
    drill_services.mock_finish(mock=mock)
    return {"url": live_server.url, "cohort": cohort, "lab": lab, "submission": submission, "mock": mock}


def _sign_in(page, base_url, user):
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "url": base_url,
                "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
            }
        ]
    )


def _overflow(page, base_url, path, status=200) -> str | None:
    """None when the page fits; otherwise which page, how wide, and the widest elements that stick out."""
    response = page.goto(base_url + path)
    assert response.status == status, f"{path}: {response.status}"
    page.wait_for_load_state("load")
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if scroll_width <= inner_width:
        return None
    culprits = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 3).map(e => e.tagName + '.' + e.className)""")
    return f"{path}: {scroll_width}px wide at {inner_width}px ({culprits})"


def _learner_paths(site) -> list[tuple[str, int]]:
    sections = [
        reverse("course:section", args=[s.module.slug, s.slug])
        for s in Section.objects.select_related("module").order_by("module__order", "order")
    ]
    one_of_each_kind = {d.kind: d for d in Drill.objects.filter(retired=False).order_by("module_slug", "order")}
    drills = [reverse("drills:drill", args=[d.module_slug, d.kind, d.slug]) for d in one_of_each_kind.values()]
    first_module = Section.objects.order_by("module__order").first().module.slug
    return [
        (path, 200)
        for path in [
            "/",
            reverse("course:index"),
            reverse("course:module", args=[first_module]),
            *sections,
            reverse("drills:index"),
            reverse("drills:module", args=[first_module]),
            *drills,
            reverse("drills:review"),
            reverse("drills:review_stats"),
            reverse("drills:mock"),
            reverse("drills:mock_report", args=[site["mock"].pk]),
            reverse("labs:index"),
            reverse("labs:detail", args=[site["lab"].slug]),
            reverse("labs:submission", args=[site["submission"].pk]),
            reverse("labs:leaderboard", args=["paged-attention"]),
            reverse("labs:leaderboard", args=[site["lab"].slug]),  # a lab without a board says so
            reverse("experiments:index"),
        ]
    ] + [("/no-such-page/", 404), (reverse("instructor:queue"), 403)]


def test_every_learner_page_fits_a_phone(browser, course_site, learner):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    _sign_in(page, course_site["url"], learner)
    paths = _learner_paths(course_site)
    assert any("sizing-the-kv-cache" in path for path, _ in paths) and any("the-roofline" in p for p, _ in paths)
    wide = [problem for path, status in paths if (problem := _overflow(page, course_site["url"], path, status))]
    # The mock interview started with no module ticked: a form error on the styled page, at phone width too.
    page.goto(course_site["url"] + reverse("drills:mock"))
    page.get_by_role("button", name="Start the interview").click()
    assert page.get_by_role("alert").inner_text() == "Tick one or more of the listed modules."
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()
    assert not wide, "\n".join(wide)


def test_every_instructor_page_and_the_login_page_fit_a_phone(browser, course_site, instructor, learner):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    base, cohort = course_site["url"], course_site["cohort"].pk
    wide = [problem for path in [reverse("login"), reverse("signup")] if (problem := _overflow(page, base, path))]
    _sign_in(page, base, instructor)
    paths = [
        reverse("instructor:index"),
        reverse("instructor:matrix", args=[cohort]),
        reverse("instructor:learner", args=[cohort, learner.pk]),
        reverse("instructor:roster", args=[cohort]),
        reverse("instructor:lab", args=[cohort, course_site["lab"].slug]),
        reverse("instructor:submission", args=[cohort, course_site["submission"].pk]),
        reverse("instructor:overrides", args=[cohort]),
        reverse("instructor:requests", args=[cohort]),
        reverse("instructor:lab_similarity", args=[cohort, course_site["lab"].slug]),
        reverse("instructor:lab_release", args=[cohort, course_site["lab"].slug]),
        reverse("instructor:queue"),
    ]
    wide += [problem for path in paths if (problem := _overflow(page, base, path))]
    context.close()
    assert not wide, "\n".join(wide)


def test_the_widest_pages_fit_a_laptop_too(browser, course_site, learner):
    """At 1366 px the two-column section layout must not grow past the window either."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    _sign_in(page, course_site["url"], learner)
    widest = [
        reverse("course:section", args=[s.module.slug, s.slug])
        for s in Section.objects.select_related("module").filter(slug__in=["sizing-the-kv-cache", "the-roofline"])
    ]
    assert len(widest) == 2
    paths = [
        *widest,
        reverse("labs:detail", args=[course_site["lab"].slug]),
        reverse("labs:submission", args=[course_site["submission"].pk]),
    ]
    wide = [problem for path in paths if (problem := _overflow(page, course_site["url"], path))]
    context.close()
    assert not wide, "\n".join(wide)
