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


@pytest.mark.parametrize("spec", sorted(CONTENT_DIR.glob("*/lab.yaml")), ids=lambda p: p.parent.name)
def test_the_site_and_the_worker_agree_on_each_labs_limits_scaled_ones_included(spec):
    from gpu_worker.contract import lab_limits

    assert content_reader.read_lab(spec.parent).limits == lab_limits(spec.parent.name)


def test_a_bad_time_scale_names_the_file_and_the_field(tmp_path):
    with pytest.raises(LabContentError, match=r"lab\.yaml: field time_scale\.scale must be a positive"):
        content_reader._time_scale({"reference_own_s": 1, "reference_cpu_s": 1, "scale": 0}, tmp_path / "lab.yaml")
