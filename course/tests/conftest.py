"""Fixtures for the course tests: the small fixture course and the real content directory."""

from pathlib import Path

import pytest
from django.core.management import call_command

FIXTURE_CONTENT = Path(__file__).resolve().parent / "fixture_content"
REAL_CONTENT = Path(__file__).resolve().parent.parent / "content"


def real_module_folders() -> list[Path]:
    return sorted(p for p in REAL_CONTENT.glob("[0-9][0-9]-*") if p.is_dir())


@pytest.fixture
def fixture_course(db):
    """The two-module fixture course, loaded through the management command."""
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    from course.models import Module

    return list(Module.objects.order_by("order"))


@pytest.fixture
def broken_content(tmp_path):
    """A writable copy of the fixture course for tests that damage one file."""
    import shutil

    target = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, target)
    return target
