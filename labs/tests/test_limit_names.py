"""The lab limit names live in one place (gpu_worker/contract/limits.py); lab.yaml files and the
content reader use exactly those names."""

import pytest
import yaml

from gpu_worker.contract.limits import LIMIT_FIELDS, Limits
from labs import content_reader
from labs.content_reader import CONTENT_DIR, LabContentError


def test_reader_uses_the_sandbox_names():
    assert content_reader.LIMIT_FIELDS is LIMIT_FIELDS
    assert {"run_memory_bytes", "run_pids", "wall_s", "cpu_s"} <= LIMIT_FIELDS


@pytest.mark.parametrize("spec", sorted(CONTENT_DIR.glob("*/lab.yaml")), ids=lambda p: p.parent.name)
def test_shipped_lab_limits_apply(spec):
    limits = yaml.safe_load(spec.read_text()).get("limits") or {}
    assert content_reader._limits(limits, spec) == limits
    Limits().updated(limits)  # raises on an unknown or bad name


def test_unknown_name_is_refused_by_both(tmp_path):
    with pytest.raises(LabContentError, match="wall_seconds"):
        content_reader._limits({"wall_seconds": 5}, tmp_path / "lab.yaml")
    with pytest.raises(ValueError, match="wall_seconds"):
        Limits().updated({"wall_seconds": 5})
