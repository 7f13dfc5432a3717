"""Shared helpers for the lab tests: fixture files and a grade() that reads them."""
from pathlib import Path

import pytest

from gpu_worker.labs import run_lab

FIXTURES = Path(__file__).resolve().parents[2] / "graders" / "fixtures"


@pytest.fixture
def fixture_source():
    def read(lab: str, name: str) -> str:
        return (FIXTURES / lab / f"{name}.py").read_text()
    return read


@pytest.fixture
def grade():
    def run(lab: str, source, mode: str = "submit", **options) -> dict:
        from gpu_worker.graders import grade as grade_with_options
        if options:
            return grade_with_options(lab, source, mode, submission_id=1, **options)
        return run_lab(1, lab, mode, source)
    return run
