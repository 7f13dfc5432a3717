"""Shared helpers for the lab tests: fixture files and a grade() that reads them."""

from pathlib import Path

import pytest

from gpu_worker.grading import grade_run

FIXTURES = Path(__file__).resolve().parents[2] / "graders" / "fixtures"


@pytest.fixture
def fixture_source():
    def read(lab: str, name: str) -> str:
        return (FIXTURES / lab / f"{name}.py").read_text()

    return read


@pytest.fixture
def grade():
    def run(lab: str, source, mode: str = "submit", **options) -> dict:
        return grade_run(1, lab, mode, source, **options)

    return run
