"""`{% url %}` and `reverse_cached` give what Django's reverse gives, wherever the site is mounted."""

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.urls import NoReverseMatch, clear_script_prefix, reverse, set_script_prefix

from common.url_memo import reverse_cached


def render(source: str, **context) -> str:
    return Template(source).render(Context(context))


def test_a_remembered_url_is_the_reversed_one_for_each_argument():
    for slug in ("kv-cache", "ring-vs-tree", "kv-cache"):
        assert reverse_cached("drills:module", [slug]) == reverse("drills:module", args=[slug])
    assert (
        reverse_cached("labs:submission", kwargs={"pk": 7})
        == reverse("labs:submission", kwargs={"pk": 7})
        == "/labs/submissions/7/"
    )


def test_the_tag_renders_urls_and_its_as_form_as_django_does():
    assert render("{% url 'drills:module' slug %}", slug="kv-cache") == "/drills/module/kv-cache/"
    assert render("{% url 'drills:module' 'ring' as where %}[{{ where }}]") == "[/drills/module/ring/]"
    assert render("{% url 'drills:module' 'not a slug' as where %}[{{ where }}]") == "[]"
    assert render("{% url 'no:such' as where %}[{{ where }}]") == "[]"
    with pytest.raises(NoReverseMatch):
        render("{% url 'no:such' %}")
    with pytest.raises(TemplateSyntaxError):
        Template("{% url %}")


def test_a_site_mounted_under_a_prefix_gets_its_own_urls():
    """The same name asked for under another script prefix (a site served at /course/) is not the cached URL
    of the root-mounted site."""
    at_root = render("{% url 'drills:index' %}")
    set_script_prefix("/course/")
    try:
        assert render("{% url 'drills:index' %}") == "/course/drills/" != at_root
        assert reverse_cached("drills:index") == reverse("drills:index") == "/course/drills/"
    finally:
        clear_script_prefix()
    assert render("{% url 'drills:index' %}") == at_root == "/drills/"


def test_arguments_that_are_not_plain_text_or_numbers_are_reversed_each_time():
    class Slug:
        def __init__(self, text):
            self.text = text

        def __str__(self):
            return self.text

    assert reverse_cached("drills:module", [Slug("one")]) == "/drills/module/one/"
    assert reverse_cached("drills:module", [Slug("two")]) == "/drills/module/two/"
