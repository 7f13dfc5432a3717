"""The lab catalogue files agree with the graders: slugs, modules, contracts, limits and starters."""

import ast
from pathlib import Path

import pytest
import yaml

from gpu_worker.contract import scaled_time_limits
from gpu_worker.graders import GRADER_MODULES, lab_limits
from gpu_worker.graders.runner import grader_module

CONTENT = Path(__file__).resolve().parents[3] / "labs" / "content"
MODULES = {
    "kv-sizing": "paged-attention",
    "paged-attention": "paged-attention",
    "scheduler": "scheduler-memory",
    "ring-allreduce": "ring-vs-tree",
}


@pytest.mark.parametrize("slug", sorted(GRADER_MODULES))
def test_lab_folder_matches_its_grader(slug):
    folder = CONTENT / slug
    spec = yaml.safe_load((folder / "lab.yaml").read_text())
    grader = grader_module(slug)
    assert spec["slug"] == slug and spec["module"] == MODULES[slug]
    assert spec["title"] and spec["summary"] and isinstance(spec["order"], int)
    assert {**spec.get("limits", {}), **scaled_time_limits(spec.get("time_scale"))} == grader.LIMITS
    assert lab_limits(slug).wall_s == grader.LIMITS["wall_s"]  # time limits given outright or scaled, never neither
    for function in grader.FUNCTIONS:
        assert f"def {function}(" in spec["contract"]
    starter = ast.parse((folder / "starter.py").read_text())
    defined = {node.name for node in starter.body if isinstance(node, ast.FunctionDef)}
    assert set(grader.FUNCTIONS) <= defined
    assert (folder / "statement.md").read_text().startswith("# ")


@pytest.mark.sandbox
def test_starter_code_runs_and_is_not_accepted(grade):
    result = grade("kv-sizing", (CONTENT / "kv-sizing" / "starter.py").read_text(), mode="run")
    assert result["verdict"] == "runtime_error" and "NotImplementedError" in result["message"]
