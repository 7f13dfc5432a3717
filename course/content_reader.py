"""Reads and validates the content folders into plain data; nothing here touches the database."""

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import exercise_schema, worked_check
from .content_schema import ContentError, check_module_yaml
from .markdown import UnknownWidget, render_markdown, widgets_placed
from .widgets import widget_html

DEFAULT_CONTENT_DIR = Path(__file__).resolve().parent / "content"
MODULE_DIR = re.compile(r"^(\d\d)-([a-z0-9]+(?:-[a-z0-9]+)*)$")
SECTION_FILE = re.compile(r"^(\d\d)-([a-z0-9]+(?:-[a-z0-9]+)*)\.md$")
TITLE_LINE = re.compile(r"^#\s+(\S.*)$")


@dataclass
class ParsedSection:
    slug: str
    title: str
    order: int
    body_html: str
    markdown: str = ""  # the raw file, so worked examples can find their quoted results


@dataclass
class ParsedModule:
    slug: str
    title: str
    order: int
    tagline: str
    bound_resource: str
    bound_technique: str
    summary_html: str
    labs: list[str]
    widgets: list[str]
    sources: list[dict] = field(default_factory=list)
    worked: list[dict] = field(default_factory=list)
    sections: list[ParsedSection] = field(default_factory=list)
    exercises: dict[str, list[dict]] = field(default_factory=dict)


def module_folders(root: Path) -> list[Path]:
    """Module folders under root, in order; anything else that is not hidden is an error."""
    if not root.is_dir():
        raise ContentError(root, "is not a directory")
    folders = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith((".", "_")) or entry.is_file():
            continue
        if not MODULE_DIR.match(entry.name):
            raise ContentError(entry.name, "folder name must look like NN-slug (e.g. 01-paged-attention)")
        folders.append(entry)
    return folders


def read_yaml(path: Path, label: str):
    if not path.is_file():
        raise ContentError(label, "file is missing")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ContentError(label, f"{where}invalid YAML ({getattr(error, 'problem', None) or error})") from None


def _render(label: str, field_name: str):
    def render(text: str) -> str:
        try:
            return render_markdown(text)
        except UnknownWidget as error:
            raise ContentError(label, str(error), field=field_name) from None

    return render


def read_sections(folder: Path, label: str) -> tuple[list[ParsedSection], list[str]]:
    section_dir = folder / "sections"
    if not section_dir.is_dir():
        raise ContentError(f"{label}/sections", "folder is missing")
    sections, placed, numbers = [], [], set()
    for path in sorted(section_dir.iterdir()):
        if path.name.startswith("."):
            continue
        file_label = f"{label}/sections/{path.name}"
        match = SECTION_FILE.match(path.name)
        if not match:
            raise ContentError(file_label, "section file name must look like NN-slug.md")
        number, slug = int(match.group(1)), match.group(2)
        if number in numbers:
            raise ContentError(file_label, f"another section also has the number {number:02d}")
        numbers.add(number)
        text = path.read_text(encoding="utf-8")
        first, _, body = text.lstrip("\ufeff").partition("\n")
        title = TITLE_LINE.match(first.strip())
        if not title:
            raise ContentError(file_label, "the first line must be '# Section title'", field="title")
        if not body.strip():
            raise ContentError(file_label, "the section has no body after its title", field="body")
        if any(existing.slug == slug for existing in sections):
            raise ContentError(file_label, f"slug {slug!r} is used by another section", field="slug")
        body_html = _render(file_label, "body")(body)
        placed += widgets_placed(body)
        sections.append(ParsedSection(slug, title.group(1).strip(), len(sections) + 1, body_html, text))
    if not sections:
        raise ContentError(f"{label}/sections", "holds no section files")
    return sections, placed


def read_module(folder: Path, seen: dict[str, set[str]]) -> ParsedModule:
    label = folder.name
    number, folder_slug = MODULE_DIR.match(folder.name).groups()
    meta = check_module_yaml(
        f"{label}/module.yaml", read_yaml(folder / "module.yaml", f"{label}/module.yaml"), folder_slug, int(number)
    )
    sections, placed = read_sections(folder, label)
    for name in meta["widgets"]:
        if name not in placed:  # listed but never placed: show it after the first section's text
            sections[0].body_html += widget_html(name)
    widgets = list(dict.fromkeys(meta["widgets"] + placed))
    module = ParsedModule(
        slug=meta["slug"],
        title=meta["title"],
        order=meta["order"],
        tagline=meta["tagline"],
        bound_resource=meta["bound_resource"],
        bound_technique=meta["bound_technique"],
        summary_html=_render(f"{label}/module.yaml", "bound.summary")(meta["summary"]),
        labs=meta["labs"],
        widgets=widgets,
        sources=meta["sources"],
        sections=sections,
    )
    section_slugs = {section.slug for section in sections}
    for kind, check in exercise_schema.KINDS.items():
        file_label = f"{label}/{kind}.yaml"
        data = read_yaml(folder / f"{kind}.yaml", file_label)
        module.exercises[kind] = check(
            file_label, data, section_slugs, _render(file_label, kind), seen.setdefault(kind, set())
        )
    if (folder / "worked.yaml").is_file():  # optional: recomputed here, so a wrong figure fails the load
        file_label = f"{label}/worked.yaml"
        module.worked = worked_check.check_worked(
            file_label,
            read_yaml(folder / "worked.yaml", file_label),
            {section.slug: section.markdown for section in sections},
        )
    return module


def read_course(root: Path | str | None = None) -> list[ParsedModule]:
    """Parse and validate every module folder; raises ContentError at the first problem."""
    root = Path(root) if root else DEFAULT_CONTENT_DIR
    seen: dict[str, set[str]] = {}
    modules = [read_module(folder, seen) for folder in module_folders(root)]
    orders = [module.order for module in modules]
    for module in modules:
        if orders.count(module.order) > 1:
            raise ContentError(
                f"{module.order:02d}-{module.slug}/module.yaml", "another module has this order", field="order"
            )
    return modules
