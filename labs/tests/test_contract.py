"""The web side speaks the worker's contract: the same modes and verdicts, the same source cap."""

from gpu_worker import contract
from labs.models import Submission
from labs.services import SubmissionRefused, source_text


def test_submission_modes_and_verdicts_are_the_contracts():
    assert tuple(Submission.Mode.values) == contract.MODES
    assert Submission.VERDICTS == contract.VERDICTS


def test_the_source_cap_is_the_contracts():
    assert source_text("x" * contract.MAX_SOURCE_BYTES) == "x" * contract.MAX_SOURCE_BYTES
    try:
        source_text("x" * (contract.MAX_SOURCE_BYTES + 1))
    except SubmissionRefused as refused:
        assert f"the limit is {contract.MAX_SOURCE_BYTES // 1024} KB" in str(refused)
    else:
        raise AssertionError("a file one byte over the contract's cap was accepted")
