"""Markdown to sanitized HTML, with `{{ widget:NAME }}` lines turned into widget mount points."""

import re

import markdown as md
import nh3

from .widgets import WIDGET_NAMES, widget_html

WIDGET_LINE = re.compile(r"^\s*\{\{\s*widget:([a-z0-9-]+)\s*\}\}\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
TOKEN = "WIDGET-MOUNT-{}-END"
TOKEN_PARAGRAPH = re.compile(r"<p>WIDGET-MOUNT-([a-z0-9-]+)-END</p>")

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "a",
    "em",
    "strong",
    "b",
    "i",
    "code",
    "pre",
    "kbd",
    "sub",
    "sup",
    "del",
    "blockquote",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "caption",
    "img",
    "span",
    "abbr",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "th": {"align"},
    "td": {"align"},
    "abbr": {"title"},
    "ol": {"start"},
    **{f"h{level}": {"id"} for level in range(2, 7)},
}


class UnknownWidget(ValueError):
    """A `{{ widget:NAME }}` line names a widget that does not exist."""


def _extract_widgets(text: str) -> tuple[str, list[str]]:
    """Replace placeholder lines (outside fenced code) with plain-text tokens."""
    lines, names, in_fence = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else WIDGET_LINE.match(line)
        if match:
            name = match.group(1)
            if name not in WIDGET_NAMES:
                raise UnknownWidget(f"unknown widget {name!r} (known: {', '.join(sorted(WIDGET_NAMES))})")
            names.append(name)
            lines += ["", TOKEN.format(name), ""]
        else:
            lines.append(line)
    return "\n".join(lines), names


def _converter() -> md.Markdown:
    return md.Markdown(
        extensions=["fenced_code", "tables", "sane_lists", "toc"],
        extension_configs={"toc": {"permalink": False}, "tables": {"use_align_attribute": True}},
        output_format="html",
    )


def render_markdown(text: str) -> str:
    """Render trusted-format, untrusted-content Markdown to safe HTML.

    Headings get ids (for in-page links); widget lines become `<div data-widget="NAME">` holding
    the widget's server-rendered text equivalent, inserted after sanitizing so it survives.
    """
    source, _ = _extract_widgets(text)
    html = _converter().convert(source)
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
    return TOKEN_PARAGRAPH.sub(lambda m: widget_html(m.group(1)), clean)


def widgets_placed(text: str) -> list[str]:
    """Names of the widgets a Markdown text places, in order."""
    return _extract_widgets(text)[1]
