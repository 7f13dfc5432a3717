"""Reads of the course for its own views and for the drills and instructor apps."""

import re
from datetime import datetime

from django.db.models import Count, Max
from django.urls import reverse

from .models import Module, Section, SectionRead

HEADING = re.compile(r'<h2 id="([^"]+)">(.*?)</h2>', re.S)
TAG = re.compile(r"<[^>]+>")


def module_list():
    """Modules in course order, each with `section_count`."""
    return Module.objects.order_by("order").annotate(section_count=Count("sections"))


def module_by_slug(slug: str) -> Module | None:
    return Module.objects.filter(slug=slug).first()


def section_url(module_slug: str, section_slug: str) -> str:
    return reverse("course:section", args=[module_slug, section_slug])


def _read_counts(user) -> dict[str, int]:
    if not getattr(user, "is_authenticated", False):
        return {}
    rows = SectionRead.objects.filter(user=user).values("section__module__slug").annotate(count=Count("id"))
    return {row["section__module__slug"]: row["count"] for row in rows}


def progress_by_module(user, modules=None) -> dict[str, dict]:
    """{module_slug: {"read": n, "total": m, "percent": p}} for every module (zeros when anonymous)."""
    modules = module_list() if modules is None else modules
    read = _read_counts(user)
    progress = {}
    for module in modules:
        total, done = module.section_count, read.get(module.slug, 0)
        progress[module.slug] = {"read": done, "total": total, "percent": round(100 * done / total) if total else 0}
    return progress


def sections_read_counts(user_ids) -> dict[tuple[int, str], int]:
    rows = (
        SectionRead.objects.filter(user_id__in=list(user_ids))
        .values("user_id", "section__module__slug")
        .annotate(count=Count("id"))
    )
    return {(row["user_id"], row["section__module__slug"]): row["count"] for row in rows}


def last_read_at(user_ids) -> dict[int, datetime]:
    rows = SectionRead.objects.filter(user_id__in=list(user_ids)).values("user_id").annotate(last=Max("read_at"))
    return {row["user_id"]: row["last"] for row in rows}


def continue_section(user) -> Section | None:
    """Where to pick up: the first unread section after the last one read; the very first when none."""
    sections = list(
        Section.objects.select_related("module")
        .defer("body_html", "module__summary_html")
        .order_by("module__order", "order")
    )
    if not sections:
        return None
    if not getattr(user, "is_authenticated", False):
        return sections[0]
    reads = dict(SectionRead.objects.filter(user=user).values_list("section_id", "read_at"))
    if not reads:
        return sections[0]
    last_id = max(reads, key=lambda section_id: reads[section_id])
    start = next(index for index, section in enumerate(sections) if section.id == last_id)
    ordered = sections[start + 1 :] + sections[:start]
    return next((section for section in ordered if section.id not in reads), None)


def section_page(module: Module, section_slug: str | None, user) -> dict | None:
    """Everything the module page shows for one section; None when the section does not exist."""
    sections = list(module.sections.order_by("order"))
    if not sections:
        return None
    current = (
        sections[0]
        if section_slug is None
        else next((section for section in sections if section.slug == section_slug), None)
    )
    if current is None:
        return None
    read_ids = set()
    if getattr(user, "is_authenticated", False):
        read_ids = set(
            SectionRead.objects.filter(user=user, section__module=module).values_list("section_id", flat=True)
        )
    index = sections.index(current)
    total = len(sections)
    done = len(read_ids)
    return {
        "module": module,
        "sections": sections,
        "section": current,
        "read_ids": read_ids,
        "is_read": current.id in read_ids,
        "previous": sections[index - 1] if index > 0 else None,
        "next": sections[index + 1] if index + 1 < total else None,
        "headings": [(anchor, TAG.sub("", text)) for anchor, text in HEADING.findall(current.body_html)],
        "progress": {"read": done, "total": total, "percent": round(100 * done / total)},
    }


def reads_for(user, limit: int = 200) -> list[SectionRead]:
    """The sections a learner read, newest first, each with its module."""
    return list(SectionRead.objects.filter(user=user).select_related("section__module").order_by("-read_at")[:limit])
