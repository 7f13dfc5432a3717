"""The real course content, loaded by `load_course`, becomes drills whose pages hold no answer."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils.html import escape

from drills import answers
from drills.models import Drill, Kind
from drills.tests.helpers import drill_url

pytestmark = pytest.mark.django_db
CONTENT = Path(settings.BASE_DIR) / "course" / "content"


def _answer_strings(drill: Drill) -> list[str]:
    data = drill.data
    if drill.kind == Kind.SPOT_THE_BUG:
        return [f"<code>{escape(data['fix'])}</code>", data["explanation_html"]]
    if drill.kind == Kind.QUIZ:
        return [choice["explanation_html"] for choice in data["choices"]]
    if drill.kind == Kind.MATCH:
        return [data["explanation_html"]] if data.get("explanation_html") else []
    return [data["answer_html"], *data["listens_for"], *[f["answer"] for f in data["follow_ups"]], *data["mistakes"]]


@pytest.mark.skipif(not any(CONTENT.glob("0*/module.yaml")), reason="no course content yet")
def test_load_course_fills_drills_and_no_page_gives_an_answer_away(client):
    call_command("load_course", stdout=open("/dev/null", "w"))
    drills = list(Drill.objects.filter(retired=False))
    assert {drill.kind for drill in drills} == set(Kind.values)
    call_command("load_course", stdout=open("/dev/null", "w"))
    assert Drill.objects.filter(retired=False).count() == len(drills)  # idempotent
    for drill in drills:
        response = client.get(drill_url(drill))
        assert response.status_code == 200, drill
        html = response.content.decode()
        main = html.split('<main id="main">')[1]
        for secret in _answer_strings(drill):
            assert secret not in main, f"{drill}: {secret[:60]!r} is on the page before answering"
        if drill.kind == Kind.QUIZ:
            assert len(answers.quiz_choices(drill)) == len(drill.data["choices"])
