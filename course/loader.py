"""Writes parsed content into the database in one transaction; the report hands each module's exercises on."""

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from .content_reader import ParsedModule, read_course
from .models import Module, Section

MODULE_FIELDS = (
    "title",
    "order",
    "tagline",
    "bound_resource",
    "bound_technique",
    "summary_html",
    "labs",
    "widgets",
    "sources",
)
SECTION_FIELDS = ("title", "order", "body_html")


@dataclass
class LoadReport:
    modules: int = 0
    sections: int = 0
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    exercises: dict[str, dict] = field(default_factory=dict)  # module slug -> its validated exercises, for drills

    def summary(self) -> str:
        return (
            f"Loaded {self.modules} modules and {self.sections} sections: {len(self.created)} created, "
            f"{len(self.updated)} updated, {len(self.deleted)} deleted."
        )


def _upsert(model, lookup: dict, values: dict, report: LoadReport, label: str):
    """Create or update one row, writing only when a field changed (so a reload writes nothing)."""
    row = model.objects.filter(**lookup).first()
    if row is None:
        row = model.objects.create(**lookup, **values)
        report.created.append(label)
        return row
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    if changed:
        for name in changed:
            setattr(row, name, values[name])
        row.save(update_fields=changed)
        report.updated.append(label)
    return row


def _write_module(parsed: ParsedModule, report: LoadReport) -> None:
    module = _upsert(
        Module, {"slug": parsed.slug}, {name: getattr(parsed, name) for name in MODULE_FIELDS}, report, parsed.slug
    )
    for section in parsed.sections:
        _upsert(
            Section,
            {"module": module, "slug": section.slug},
            {name: getattr(section, name) for name in SECTION_FIELDS},
            report,
            f"{parsed.slug}/{section.slug}",
        )
    gone = module.sections.exclude(slug__in=[section.slug for section in parsed.sections])
    report.deleted += [f"{parsed.slug}/{slug}" for slug in gone.values_list("slug", flat=True)]
    gone.delete()  # their SectionRead rows go with them; surviving slugs keep theirs
    report.modules += 1
    report.sections += len(parsed.sections)
    report.exercises[parsed.slug] = parsed.exercises


def load_course(path: Path | str | None = None) -> LoadReport:
    """Validate everything first, then write it all or nothing; raises ContentError when invalid."""
    parsed_modules = read_course(path)
    report = LoadReport()
    with transaction.atomic():
        for parsed in parsed_modules:
            _write_module(parsed, report)
        gone = Module.objects.exclude(slug__in=[parsed.slug for parsed in parsed_modules])
        report.deleted += list(gone.values_list("slug", flat=True))
        gone.delete()
    return report
