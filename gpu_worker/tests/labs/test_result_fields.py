"""A test's result carries what it compared and where a run stopped as fields, never only as words;
a hidden test's fields are withheld like its message; a verdict nobody knows is refused where it is made."""

import pytest

from gpu_worker import contract
from gpu_worker.contract import result as result_format
from gpu_worker.contract.result import TEST_FIELDS
from gpu_worker.graders.cases import exact_int
from gpu_worker.graders.result import Mismatch, Report


def report_with(*tests: tuple[str, str], mode: str = "submit") -> Report:
    report = Report("kv-sizing", mode)
    for name, visibility in tests:
        report.declare(name, visibility)
    return report


def entries(report: Report) -> dict[str, dict]:
    return {test["name"]: test for test in report.to_dict()["tests"]}


def test_the_fields_are_the_contracts_optional_keys():
    assert set(TEST_FIELDS) == result_format.TestEntry.__optional_keys__


def test_a_wrong_value_carries_input_expected_and_got():
    report = report_with(("kv-llama", "public"), ("hidden-kv-1", "hidden"))
    for name in ("kv-llama", "hidden-kv-1"):
        passed, message = exact_int(65536, 131072, "kv_bytes_per_token(llama-3-8b, 2)")
        report.record(name, passed, message)
    public, hidden = entries(report).values()
    assert public["message"] == "kv_bytes_per_token(llama-3-8b, 2) returned 65536, expected 131072"
    assert (public["input"], public["expected"], public["got"]) == (
        "kv_bytes_per_token(llama-3-8b, 2)",
        "131072",
        "65536",
    )
    assert hidden["message"] == "" and not set(TEST_FIELDS) & set(hidden)


def test_a_value_of_the_wrong_type_says_what_the_contract_asks_for():
    passed, message = exact_int(1.5, 2, "num_gpu_blocks(...)")
    assert not passed and message.fields == {"input": "num_gpu_blocks(...)", "expected": "an int", "got": "1.5 (float)"}


def test_a_stopped_run_names_its_test_on_every_test_it_touched():
    report = report_with(("done", "public"), ("slow", "public"), ("later", "public"), ("hidden-later", "hidden"))
    report.record("done", True)
    report.current = "slow"
    report.stopped("time_limit", "no answer within the 5 s wall-clock limit")
    tests = entries(report)
    assert "stopped_at" not in tests["done"]
    assert tests["slow"]["stopped_at"] == tests["later"]["stopped_at"] == "slow"
    assert tests["later"]["message"] == "not run: the run stopped at test slow"
    assert "stopped_at" not in tests["hidden-later"] and tests["hidden-later"]["message"] == ""


def test_a_run_stopped_before_any_test_names_none():
    report = report_with(("first", "public"))
    report.stopped("runtime_error", "the program crashed (SIGSEGV)")
    assert "stopped_at" not in entries(report)["first"]


def test_a_message_shown_for_a_hidden_test_brings_its_fields():
    report = report_with(("hidden-step", "hidden"))
    report.record(
        "hidden-step", False, Mismatch("step 3: 4 blocks, expected 2", expected=2, got=4), message_public=True
    )
    assert entries(report)["hidden-step"] == {
        "name": "hidden-step",
        "visibility": "hidden",
        "passed": False,
        "score": 0.0,
        "max_score": 1.0,
        "message": "step 3: 4 blocks, expected 2",
        "expected": "2",
        "got": "4",
    }


@pytest.mark.parametrize("verdict", ["wrong answer", "Accepted", "timeout", ""])
def test_an_unknown_verdict_raises_where_it_is_made(verdict):
    report = report_with(("t", "public"))
    with pytest.raises(ValueError, match="unknown verdict"):
        report.record("t", False, "no", verdict)
    with pytest.raises(ValueError, match="unknown verdict"):
        report.fail(verdict, "no")
    assert report.tests["t"].passed is None and report.failure is None


def test_a_failed_test_cannot_be_accepted_and_verdicts_travel_as_plain_strings():
    report = report_with(("t", "public"))
    with pytest.raises(ValueError, match="cannot be accepted"):
        report.record("t", False, "no", contract.Verdict.ACCEPTED)
    report.record("t", False, "no", contract.Verdict.TIME_LIMIT)
    result = report.to_dict()
    assert type(result["verdict"]) is str and result["verdict"] == "time_limit"
    assert contract.check_verdict("rejected") is contract.Verdict.REJECTED


def test_the_errors_that_carry_a_verdict_refuse_an_unknown_one():
    from gpu_worker.graders.source_checks import SourceProblem, check_python_source
    from gpu_worker.sandbox import LearnerError

    with pytest.raises(ValueError, match="unknown verdict 'runtime-error'"):
        LearnerError("runtime-error", "crashed")
    with pytest.raises(ValueError, match="unknown verdict 'compile'"):
        SourceProblem("compile", "bad")
    with pytest.raises(SourceProblem) as refused:
        check_python_source("def f(:\n")
    assert refused.value.verdict == "compile_error"
