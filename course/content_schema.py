"""Validation of parsed content files (CONTENT_SCHEMA.md); every error names file, item and field."""

import re

from gpu_worker import contract

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
URL = re.compile(r"^https?://[^\s/?#]+\.[^\s/?#]+(?:[/?#]\S*)?$")
RESOURCES = {"kv-memory", "memory-bandwidth", "interconnect-bandwidth", "latency"}
LABS = frozenset(contract.lab_slugs())  # one folder per lab in labs/content
WIDGETS = {"kv-calculator", "ring-stepper", "batching-timeline", "roofline"}
LANGUAGES = {"python", "yaml", "bash", "text"}
LEVELS = {"junior", "mid", "senior", "staff"}


class ContentError(ValueError):
    """An invalid content file; the message names the file, the item and the field."""

    def __init__(self, file, problem: str, item: str | None = None, field: str | None = None):
        where = [str(file)]
        if item:
            where.append(item)
        if field:
            where.append(f"field '{field}'")
        super().__init__(f"{': '.join(where)}: {problem}")


class Checker:
    """Reads fields of one mapping, raising ContentError with file/item/field on any problem."""

    def __init__(self, file, data, item: str | None = None):
        self.file, self.item = file, item
        if not isinstance(data, dict):
            raise ContentError(file, f"expected a mapping, got {type(data).__name__}", item)
        self.data = data

    def fail(self, field: str | None, problem: str):
        raise ContentError(self.file, problem, self.item, field)

    def only(self, allowed: set[str]) -> None:
        unknown = sorted(set(self.data) - allowed)
        if unknown:
            self.fail(unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})")

    def text(self, field: str, required: bool = True) -> str:
        value = self.data.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.fail(field, "is required and must be non-empty text")
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.fail(field, f"must be text, got {type(value).__name__}")
        return str(value)

    def slug(self, field: str = "slug") -> str:
        value = self.text(field)
        if not SLUG.match(value):
            self.fail(field, f"{value!r} is not a slug (lowercase letters, digits, single hyphens)")
        return value

    def integer(self, field: str, low: int | None = None, high: int | None = None) -> int:
        value = self.data.get(field)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, f"must be an integer, got {value!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            self.fail(field, f"{value} is outside {low}..{high}")
        return value

    def boolean(self, field: str, default: bool | None = None) -> bool:
        value = self.data.get(field, default)
        if not isinstance(value, bool):
            self.fail(field, f"must be true or false, got {value!r}")
        return value

    def choice(self, field: str, options: set[str]) -> str:
        value = self.text(field)
        if value not in options:
            self.fail(field, f"{value!r} is not one of {', '.join(sorted(options))}")
        return value

    def items(self, field: str, low: int = 0, high: int | None = None, required: bool = True) -> list:
        value = self.data.get(field)
        if value is None and not required:
            return []
        if not isinstance(value, list):
            self.fail(field, f"must be a list, got {type(value).__name__}")
        if len(value) < low or (high is not None and len(value) > high):
            bound = f"{low}..{high}" if high is not None else f"at least {low}"
            self.fail(field, f"has {len(value)} entries, needs {bound}")
        return value

    def strings(self, field: str, low: int = 0, high: int | None = None) -> list[str]:
        values = self.items(field, low, high)
        for index, value in enumerate(values, start=1):
            if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
                self.fail(f"{field}[{index}]", "must be non-empty text")
        return [str(value) for value in values]

    def section(self, sections: set[str]) -> str:
        value = self.text("section", required=False)
        if value and value not in sections:
            self.fail("section", f"{value!r} is not a section of this module ({', '.join(sorted(sections))})")
        return value


def item_label(index: int, raw) -> str:
    """'item 3 (slug-name)' so an error is found both by position and by slug."""
    slug = raw.get("slug") if isinstance(raw, dict) else None
    return f"item {index} ({slug})" if isinstance(slug, str) and slug else f"item {index}"


def check_module_yaml(file, data, folder_slug: str, folder_order: int) -> dict:
    check = Checker(file, data)
    check.only({"slug", "title", "order", "tagline", "bound", "lab", "labs", "widgets", "sources"})
    slug = check.slug()
    if slug != folder_slug:
        check.fail("slug", f"{slug!r} must equal the folder name without its number ({folder_slug!r})")
    order = check.integer("order", 1, 99)
    if order != folder_order:
        check.fail("order", f"{order} must equal the folder's number ({folder_order})")
    if "bound" not in data:
        check.fail("bound", "is required (resource, technique, summary)")
    bound = Checker(file, data["bound"], "bound")
    bound.only({"resource", "technique", "summary"})
    if "lab" in data and "labs" in data:
        check.fail("labs", "give either 'lab' or 'labs', not both")
    if "lab" in data:
        labs = [check.choice("lab", LABS)]
    else:
        labs = check.strings("labs") if "labs" in data else []
        for index, lab in enumerate(labs, start=1):
            if lab not in LABS:
                check.fail(f"labs[{index}]", f"{lab!r} is not one of {', '.join(sorted(LABS))}")
    widgets = check.strings("widgets") if "widgets" in data else []
    for index, widget in enumerate(widgets, start=1):
        if widget not in WIDGETS:
            check.fail(f"widgets[{index}]", f"{widget!r} is not one of {', '.join(sorted(WIDGETS))}")
    return {
        "slug": slug,
        "title": check.text("title"),
        "order": order,
        "tagline": check.text("tagline"),
        "bound_resource": bound.choice("resource", RESOURCES),
        "bound_technique": bound.text("technique"),
        "summary": bound.text("summary"),
        "labs": labs,
        "widgets": widgets,
        "sources": check_sources(file, check.items("sources", required=False)),
    }


def check_sources(file, raw_sources: list) -> list[dict]:
    """Optional reading list: each entry a title, an absolute http(s) link to the origin, a short note."""
    sources = []
    for index, raw in enumerate(raw_sources, start=1):
        check = Checker(file, raw, f"sources[{index}]")
        check.only({"title", "url", "note"})
        url = check.text("url")
        if not URL.match(url):
            check.fail("url", f"{url!r} is not an absolute http(s) link")
        sources.append({"title": check.text("title"), "url": url, "note": check.text("note", required=False)})
    return sources
