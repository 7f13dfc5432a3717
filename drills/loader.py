"""Upsert each module's drills from the exercises the course loader read, idempotently."""

from dataclasses import dataclass

from django.db import transaction
from django.utils.html import strip_tags
from django.utils.text import Truncator

from common.readcache import content_changed
from course.loader import LoadReport, load_course

from .models import Drill, Kind

# Exercise file key -> (kind, keys each item must carry).
KINDS = {
    "spot_the_bug": (
        Kind.SPOT_THE_BUG,
        ("slug", "title", "prompt_html", "code", "bug_line", "fix", "explanation_html"),
    ),
    "match": (Kind.MATCH, ("slug", "title", "prompt_html", "pairs")),
    "quiz": (Kind.QUIZ, ("slug", "question_html", "choices")),
    "cards": (Kind.CARD, ("slug", "question", "answer_html", "listens_for")),
}


@dataclass(frozen=True)
class LoadResult:
    created: int
    updated: int
    retired: int


def _title(kind: str, item: dict) -> str:
    if kind == Kind.QUIZ:
        return Truncator(strip_tags(item["question_html"]).strip()).chars(200)
    if kind == Kind.CARD:
        return Truncator(item["question"]).chars(200)
    return item["title"]


def _fields(kind: str, item: dict) -> dict:
    return {
        "title": _title(kind, item),
        "section": item.get("section") or "",
        "topic": item.get("topic") or "",
        "order": int(item.get("order") or 0),
        "data": item,
        "retired": False,
    }


def load_module_exercises(*, module_slug: str, exercises: dict) -> LoadResult:
    """Create or update every item, keep attempts, and retire drills the content no longer has."""
    incoming: dict[tuple[str, str], dict] = {}
    for key, items in exercises.items():
        if key not in KINDS:
            raise ValueError(f"module {module_slug}: unknown exercise kind {key!r}")
        kind, required = KINDS[key]
        for item in items or []:
            missing = [name for name in required if name not in item]
            if missing:
                raise ValueError(f"module {module_slug}: {key} item {item.get('slug')!r} lacks {', '.join(missing)}")
            incoming[(kind, item["slug"])] = _fields(kind, item)

    with transaction.atomic():
        existing = {(d.kind, d.slug): d for d in Drill.objects.filter(module_slug=module_slug)}
        to_create, to_update = [], []
        for (kind, slug), fields in incoming.items():
            drill = existing.get((kind, slug))
            if drill is None:
                to_create.append(Drill(module_slug=module_slug, kind=kind, slug=slug, **fields))
            elif any(getattr(drill, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(drill, name, value)
                to_update.append(drill)
        Drill.objects.bulk_create(to_create)
        if to_update:
            Drill.objects.bulk_update(to_update, ["title", "section", "topic", "order", "data", "retired"])
        gone = [d.pk for key, d in existing.items() if key not in incoming and not d.retired]
        Drill.objects.filter(pk__in=gone).update(retired=True)
        content_changed()  # bulk writes send no model signals
    return LoadResult(created=len(to_create), updated=len(to_update), retired=len(gone))


def load_course_with_drills(path=None) -> LoadReport:
    """Load the course, then each module's drills from the same files: all or nothing, in one transaction."""
    with transaction.atomic():
        report = load_course(path)
        for module_slug, exercises in report.exercises.items():
            load_module_exercises(module_slug=module_slug, exercises=exercises)
    return report
