"""The contract both sides share: every verdict is accepted, the learner's fault or ours; labs come from lab.yaml."""

import pytest

from gpu_worker import contract
from gpu_worker.graders.runner import grader_module


def test_every_verdict_is_accepted_a_learner_fault_or_internal_error():
    assert (contract.ACCEPTED, *contract.LEARNER_FAULTS, contract.INTERNAL_ERROR) == contract.VERDICTS
    assert len(set(contract.VERDICTS)) == len(contract.VERDICTS)
    assert contract.INTERNAL_ERROR not in contract.LEARNER_FAULTS
    assert set(contract.ZERO_SCORE_VERDICTS) <= set(contract.VERDICTS) - {contract.ACCEPTED}


def test_each_lab_folder_has_a_grader_reading_its_limits():
    slugs = contract.lab_slugs()
    assert slugs == tuple(sorted(path.parent.name for path in contract.CONTENT_DIR.glob("*/lab.yaml")))
    for slug in slugs:
        assert contract.lab_limits(slug) == grader_module(slug).LIMITS


def test_an_unknown_lab_has_no_limits():
    with pytest.raises(KeyError, match="unknown lab 'no-such-lab'"):
        contract.lab_limits("no-such-lab")
