"""A module's sources: kept from module.yaml and listed as plain links after its last section."""

import pytest

from course.models import Module

from .conftest import real_module_folders

pytestmark = pytest.mark.django_db


def test_sources_are_listed_after_the_last_section_only(client, fixture_course):
    last = client.get("/course/alpha/batching/").content.decode()
    assert "Sources for this module" in last
    assert '<a href="https://arxiv.org/abs/2309.06180" rel="noopener noreferrer">Efficient Memory Management' in last
    assert "the paper that introduced paged KV blocks" in last
    assert '<a href="https://docs.vllm.ai/en/latest/" rel="noopener noreferrer">vLLM documentation</a>' in last
    first = client.get("/course/alpha/").content.decode()
    assert "Sources for this module" not in first


def test_a_module_without_sources_shows_no_empty_list(client, fixture_course):
    assert Module.objects.get(slug="beta").sources == []
    sections = Module.objects.get(slug="beta").sections.order_by("order")
    page = client.get(f"/course/beta/{sections.last().slug}/").content.decode()
    assert "Sources for this module" not in page


def test_every_shipped_module_up_to_eight_cites_its_sources(db):
    from django.core.management import call_command

    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    call_command("load_course", stdout=open("/dev/null", "w"))
    for module in Module.objects.filter(order__lte=8):
        assert len(module.sources) >= 3, module.slug
        assert all(source["url"].startswith("https://") for source in module.sources), module.slug
