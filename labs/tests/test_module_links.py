"""A course module page lists its labs by title, each speed lab with a link to its leaderboard."""

import pytest
from django.core.management import call_command

from course.models import Module
from course.tests.conftest import FIXTURE_CONTENT
from labs.selectors import labs_named
from labs.tests.factories import LabFactory, speed_lab

pytestmark = pytest.mark.django_db


def test_labs_named_keeps_the_modules_order_and_marks_the_boards():
    LabFactory()  # kv-sizing: graded on correctness alone
    speed_lab("paged-attention")
    assert labs_named(slugs=["paged-attention", "kv-sizing", "not-loaded-yet"]) == [
        {"slug": "paged-attention", "title": "Paged attention kernel", "has_leaderboard": True},
        {"slug": "kv-sizing", "title": "KV cache sizing", "has_leaderboard": False},
        {"slug": "not-loaded-yet", "title": "not-loaded-yet", "has_leaderboard": False},
    ]


def test_the_module_page_links_each_lab_and_the_leaderboards(client):
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    Module.objects.filter(slug="alpha").update(labs=["kv-sizing", "paged-attention"])
    LabFactory()
    speed_lab("paged-attention")
    page = client.get("/course/alpha/").content.decode()
    assert '<a href="/labs/kv-sizing/">Lab: KV cache sizing</a></li>' in page
    assert (
        '<a href="/labs/paged-attention/">Lab: Paged attention kernel</a> · <a href="/labs/paged-attention/'
        'leaderboard/">Leaderboard<span class="visually-hidden"> of Paged attention kernel</span></a>'
    ) in page
    assert page.count("/leaderboard/") == 1
