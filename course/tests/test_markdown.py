"""Markdown rendering: sanitizing, heading ids, code and tables, and widget mount points."""

import pytest

from course.markdown import UnknownWidget, render_markdown, widgets_placed


def test_headings_get_ids_and_code_keeps_its_language():
    html = render_markdown("## Worked numbers\n\n```python\nx = 2 * 32\n```\n")
    assert '<h2 id="worked-numbers">Worked numbers</h2>' in html
    assert '<pre><code class="language-python">x = 2 * 32' in html


def test_tables_survive_with_alignment():
    html = render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 |\n")
    assert "<table>" in html and '<td align="right">2</td>' in html


def test_scripts_handlers_and_javascript_links_are_removed():
    html = render_markdown(
        'Hi <script>alert(1)</script> <img src="x" onerror="alert(2)">'
        ' [link](javascript:alert(3)) <iframe src="https://e.com"></iframe>'
    )
    assert "<script" not in html and "onerror" not in html
    assert "javascript:" not in html and "<iframe" not in html


def test_widget_line_becomes_mount_point_with_text_equivalent():
    html = render_markdown("Before.\n\n{{ widget:ring-stepper }}\n\nAfter.")
    assert '<div class="widget" data-widget="ring-stepper"' in html
    assert "2(N−1)/N · K = 384 MiB" in html  # the server-rendered table for 4 ranks, 256 MiB
    assert html.index("Before.") < html.index("data-widget") < html.index("After.")


def test_widget_line_inside_code_fence_stays_text():
    html = render_markdown("```\n{{ widget:roofline }}\n```\n")
    assert "data-widget" not in html and "{{ widget:roofline }}" in html
    assert widgets_placed("```\n{{ widget:roofline }}\n```\n") == []


def test_unknown_widget_is_an_error():
    with pytest.raises(UnknownWidget, match="unknown widget 'spinner'"):
        render_markdown("{{ widget:spinner }}")


def test_mount_point_cannot_be_forged_through_raw_html():
    html = render_markdown('<div data-widget="kv-calculator" onclick="x()">fake</div>')
    assert "data-widget" not in html and "onclick" not in html
