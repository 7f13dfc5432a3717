"""Reads and validates labs/content/<slug>/{lab.yaml, statement.md, starter.py}; errors name file and field."""

from dataclasses import dataclass
from pathlib import Path

import yaml

from course.markdown import render_markdown
from gpu_worker.contract import scaled_time_limits
from gpu_worker.contract.limits import LIMIT_FIELDS

CONTENT_DIR = Path(__file__).resolve().parent / "content"
KNOWN_FIELDS = {"slug", "title", "module", "module_slug", "order", "summary", "contract", "limits", "time_scale"}


class LabContentError(ValueError):
    """An invalid lab folder; the message names the file and the field."""


@dataclass
class LabContent:
    slug: str
    title: str
    module_slug: str
    order: int
    summary: str
    contract: str
    limits: dict
    statement_html: str
    starter_code: str
    unknown_fields: tuple = ()

    def model_fields(self) -> dict:
        return {
            name: getattr(self, name)
            for name in (
                "title",
                "module_slug",
                "order",
                "summary",
                "contract",
                "limits",
                "statement_html",
                "starter_code",
            )
        }


def read_all(root: Path = CONTENT_DIR) -> list[LabContent]:
    root = Path(root)
    if not root.is_dir():
        raise LabContentError(f"{root}: no such folder")
    folders = sorted(path for path in root.iterdir() if path.is_dir() and not path.name.startswith((".", "_")))
    return [read_lab(folder) for folder in folders]


def read_lab(folder: Path) -> LabContent:
    spec_file = folder / "lab.yaml"
    data = _yaml(spec_file)
    slug = folder.name
    if data.get("slug", slug) != slug:
        raise LabContentError(f"{spec_file}: field 'slug' is {data['slug']!r} but the folder is {slug!r}")
    return LabContent(
        slug=slug,
        title=_text(data, "title", spec_file, required=True),
        module_slug=_text(data, "module_slug" if "module_slug" in data else "module", spec_file, required=True),
        order=_order(data, spec_file),
        summary=_text(data, "summary", spec_file),
        contract=_text(data, "contract", spec_file),
        limits=_limits(data.get("limits"), spec_file) | _time_scale(data.get("time_scale"), spec_file),
        statement_html=render_markdown(_without_title(_read(folder / "statement.md"))),
        starter_code=_read(folder / "starter.py"),
        unknown_fields=tuple(sorted(set(data) - KNOWN_FIELDS)),
    )


def _read(path: Path) -> str:
    if not path.is_file():
        raise LabContentError(f"{path}: file is missing")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise LabContentError(f"{path}: not UTF-8 ({error})") from None
    if not text.strip():
        raise LabContentError(f"{path}: file is empty")
    return text


def _without_title(markdown: str) -> str:
    """The statement without a leading `# Title` line: the page shows the lab's title already."""
    lines = markdown.lstrip().splitlines()
    return "\n".join(lines[1:]) if lines and lines[0].startswith("# ") else markdown


def _yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(_read(path))
    except yaml.YAMLError as error:
        raise LabContentError(f"{path}: invalid YAML: {error}") from None
    if not isinstance(data, dict):
        raise LabContentError(f"{path}: must be a mapping of fields, got {type(data).__name__}")
    return data


def _text(data: dict, field: str, path: Path, required: bool = False) -> str:
    value = data.get(field)
    if value is None:
        if required:
            raise LabContentError(f"{path}: field '{field}' is required")
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise LabContentError(f"{path}: field '{field}' must be a non-empty string")
    return value.strip() if field != "contract" else value.rstrip() + "\n"


def _order(data: dict, path: Path) -> int:
    value = data.get("order", 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise LabContentError(f"{path}: field 'order' must be a whole number >= 0, got {value!r}")
    return value


def _time_scale(value, path: Path) -> dict:
    """The time limits a lab's `time_scale` gives (the rule: gpu_worker.contract.scaled_time_limits)."""
    try:
        return scaled_time_limits(value)
    except ValueError as error:
        raise LabContentError(f"{path}: field {error}") from None


def _limits(value, path: Path) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LabContentError(f"{path}: field 'limits' must be a mapping")
    for key, number in value.items():
        if key not in LIMIT_FIELDS:
            raise LabContentError(f"{path}: field 'limits.{key}' is unknown; known: {', '.join(sorted(LIMIT_FIELDS))}")
        if not isinstance(number, (int, float)) or isinstance(number, bool) or number <= 0:
            raise LabContentError(f"{path}: field 'limits.{key}' must be a positive number, got {number!r}")
    return dict(value)
