"""Markdown to safe HTML for lab statements: the course's renderer when present, else our own."""

try:
    from course.markdown import render_markdown
except ImportError:  # pragma: no cover - the course app ships one; this keeps labs usable without it
    import markdown as _md
    import nh3 as _nh3

    _TAGS = {
        "p",
        "br",
        "hr",
        "a",
        "em",
        "strong",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "h2",
        "h3",
        "h4",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "span",
    }

    def render_markdown(text: str) -> str:
        html = _md.markdown(text, extensions=["fenced_code", "tables", "sane_lists"])
        return _nh3.clean(
            html,
            tags=_TAGS,
            attributes={"a": {"href", "title"}, "code": {"class"}},
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer",
        )


__all__ = ["render_markdown"]
