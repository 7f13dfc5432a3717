"""Results for humans: verdict words, measurements with units and direction, the bandwidth table,
folded per-trace tables, the test a stopped run was on, and input/expected/got of public failures."""

import pytest
from django.urls import reverse

from gpu_worker.contract import Verdict
from gpu_worker.graders.result import Mismatch, Report
from labs import presentation
from labs.models import Submission
from labs.services import result_ingest
from labs.tests.factories import LabFactory, SubmissionFactory, result_json

TRACE = {
    "steps": 120,
    "finished": 16,
    "requests": 16,
    "output_tokens": 900,
    "throughput": 7.5,
    "ttft_p50": 3,
    "ttft_p99": 9,
    "itl_p50": 1,
    "itl_p99": 2,
    "preemptions": 0,
    "peak_blocks_used": 44,
}
BANDWIDTH = [
    {
        "size": 4096,
        "count": 1024,
        "type": "float",
        "ranks": 4,
        "time_us": 310.5,
        "algbw": 0.0132,
        "busbw": 0.0198,
        "library_time_us": 120.0,
        "library_busbw": 0.0512,
    },
    {
        "size": 4 * 2**20,
        "count": 2**20,
        "type": "float",
        "ranks": 4,
        "time_us": 9100.0,
        "algbw": 0.4609,
        "busbw": 0.6914,
        "library_time_us": 5000.0,
        "library_busbw": 1.2583,
    },
]


@pytest.mark.parametrize("verdict", Submission.VERDICTS)
def test_every_verdict_has_words_and_a_meaning(verdict):
    name, meaning = presentation.verdict_name(verdict), presentation.verdict_meaning(verdict)
    assert "_" not in name and name[0].isupper() and meaning.endswith(".") and len(meaning) > 15


def test_named_verdict_words():
    assert presentation.verdict_name("time_limit") == "Time limit exceeded"
    assert presentation.verdict_meaning("accepted") == "All tests passed."
    assert presentation.verdict_meaning("time_limit") == "Your code ran past the time limit, so the run was stopped."
    assert presentation.verdict_name("") == "No verdict"


def test_measurements_carry_units_and_which_way_is_better():
    shown = presentation.measurements(
        {"speed_ratio": 0.537, "sandbox_start_s": 1.234, "median_ms": 3.21, "device": "cpu", "weird_thing": 12}
    )
    rows = {row["label"]: (row["value"], row["direction"]) for row in shown["rows"]}
    assert rows["speed vs reference"] == ("0.54×", "higher is better")
    assert rows["sandbox start"] == ("1.23 s", "")
    assert rows["your median latency"] == ("3.21 ms", "lower is better")
    assert rows["device"] == ("cpu", "") and rows["weird thing"] == ("12", "")
    assert presentation.number(1, "steps") == "1 step" and presentation.number(60, "steps") == "60 steps"


def test_bandwidth_is_an_nccl_tests_table_not_a_list_of_dicts():
    table = presentation.measurements({"bandwidth": BANDWIDTH})["bandwidth"]
    assert table["headers"][:6] == ["size", "count", "type", "time (µs)", "algbw (GB/s)", "busbw (GB/s)"]
    assert table["rows"][1][:6] == ["4 MiB", "1,048,576", "float", "9,100.0", "0.4609", "0.6914"]
    assert table["ranks"] == 4


def test_many_per_trace_tables_fold_under_a_summary_row_each():
    traces = {f"trace-{n}": {"yours": {**TRACE, "throughput": 5.0 + n}, "reference": TRACE} for n in range(5)}
    summary, *tables = presentation.measurements({"traces": traces})["tables"]
    assert summary["open"] and not any(table["open"] for table in tables) and len(tables) == 5
    assert summary["title"] == "traces: throughput (higher is better), one row each"
    assert summary["headers"] == ["yours", "reference"]
    assert summary["rows"][2] == ["trace-2", "7 tokens/step", "7.5 tokens/step"]
    assert tables[0]["headers"] == ["yours", "reference"]
    assert ["throughput (higher is better)", "5 tokens/step", "7.5 tokens/step"] in tables[0]["rows"]


def test_two_trace_tables_stay_open_without_a_summary():
    traces = {f"trace-{n}": {"yours": TRACE, "reference": TRACE} for n in range(2)}
    tables = presentation.measurements({"traces": traces})["tables"]
    assert [table["open"] for table in tables] == [True, True] and not any(t.get("summary") for t in tables)


def test_a_dict_of_rows_is_one_table():
    exchanges = {
        "n2-small": {"ranks": 2, "bytes_sent": 4096, "steps": 2},
        "n4-odd": {"ranks": 4, "bytes_sent": 8192, "steps": 6},
    }
    [table] = presentation.measurements({"exchanges": exchanges})["tables"]
    assert table["headers"] == ["ranks", "bytes sent", "steps"]
    assert table["rows"][1] == ["n4-odd", "4", "8,192 B", "6"]


def test_every_contract_verdict_has_words_and_no_other_does():
    assert list(presentation.VERDICTS) == list(Verdict)
    assert all(name and meaning for name, meaning in presentation.VERDICTS.values())
    assert presentation.verdict_name("time_limit") == "Time limit exceeded"


def test_the_test_a_stopped_run_was_on_is_the_fields():
    tests = [
        {"name": "kv-llama", "passed": True, "message": ""},
        {"name": "blocks-70b", "passed": False, "message": "reworded", "stopped_at": "blocks-70b"},
        {"name": "seqs-8b", "passed": False, "message": "reworded too", "stopped_at": "blocks-70b"},
    ]
    assert presentation.stopped_test(verdict="time_limit", message="", tests=tests) == "blocks-70b"
    assert presentation.stopped_test(verdict="memory_limit", message="", tests=tests) == "blocks-70b"
    assert presentation.stopped_test(verdict="runtime_error", message="", tests=tests) == ""


def test_a_result_stored_before_the_fields_names_its_stopped_test_from_the_words():
    tests = [
        {"name": "kv-llama", "passed": True, "message": ""},
        {"name": "blocks-70b", "passed": False, "message": "no answer within the 5 s wall-clock limit"},
        {"name": "seqs-8b", "passed": False, "message": "not run: the run stopped at test blocks-70b"},
    ]
    assert presentation.stopped_test(verdict="time_limit", message="", tests=tests) == "blocks-70b"
    assert (
        presentation.stopped_test(verdict="time_limit", message="test blocks-70b: killed", tests=tests[:2])
        == "blocks-70b"
    )
    assert presentation.stopped_test(verdict="wrong_answer", message="", tests=tests) == ""
    assert presentation.stopped_test(verdict="time_limit", message="killed after 5 s", tests=tests[:2]) == ""


@pytest.mark.parametrize(
    "message, detail",
    [
        (
            "kv_bytes_per_token(llama-3-8b, 2) returned 65536, expected 131072",
            {"input": "kv_bytes_per_token(llama-3-8b, 2)", "expected": "131072", "got": "65536"},
        ),
        ("num_gpu_blocks(...) returned 1.5 (float); the contract asks for an int", None),
        (
            "rank 1: element 3 is 2, the sum over ranks is 6",
            {"input": "rank 1: element 3", "expected": "6", "got": "2"},
        ),
        ("something else went wrong", None),
    ],
)
def test_a_result_stored_before_the_fields_splits_its_words_into_input_expected_got(message, detail):
    test = {"name": "t", "visibility": "public", "passed": False, "message": message}
    assert presentation.failure_detail(test) == detail
    assert presentation.failure_detail({**test, "visibility": "hidden"}) is None


def test_grader_fields_win_over_the_message():
    test = {
        "name": "t",
        "visibility": "public",
        "passed": False,
        "message": "x",
        "input": {"seq_len": 8},
        "expected": 4,
        "got": 5,
    }
    assert presentation.failure_detail(test) == {"input": "{'seq_len': 8}", "expected": "4", "got": "5"}


@pytest.mark.django_db
def test_the_result_page_shows_the_graders_fields_whatever_the_words(learner_client, learner):
    submission = SubmissionFactory(learner=learner, lab=LabFactory())
    report = Report("kv-sizing", "submit", submission.pk)
    for name, visibility in (("kv-gqa", "public"), ("hidden-gqa-3", "hidden"), ("seqs-8b", "public")):
        report.declare(name, visibility)
    report.record("kv-gqa", False, Mismatch("not what we hoped for", input="kv_bytes(gqa, 2)", expected=2, got=1))
    report.current = "hidden-gqa-3"
    report.stopped("time_limit", "no answer in time")
    result_ingest(result=report.to_dict())
    text = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    flat = text.replace("\n", "").replace("  ", "")
    assert 'It was running test <code id="stopped-test">hidden-gqa-3</code>' in text
    assert "<dt>input</dt><dd><code>kv_bytes(gqa, 2)</code></dd>" in flat
    assert "<dt>expected</dt><dd><code>2</code></dd><dt>got</dt><dd><code>1</code></dd>" in flat


@pytest.mark.django_db
def test_the_result_page_speaks_in_words(learner_client, learner):
    """A result as stored before the worker sent fields: the page still reads it."""
    lab = LabFactory()
    submission = SubmissionFactory(learner=learner, lab=lab)
    result = result_json(submission.pk, verdict="time_limit", score=0.5)
    result["message"] = "test hidden-gqa-3: no answer within the 20 s wall-clock limit"
    result["tests"][0].update(passed=False, message="kv_bytes_per_token(gqa, 2) returned 1, expected 2")
    result["metrics"].update(
        {
            "speed_ratio": 0.537,
            "sandbox_start_s": 1.2,
            "bandwidth": BANDWIDTH,
            "traces": {f"t{n}": {"yours": TRACE, "reference": TRACE} for n in range(4)},
        }
    )
    result_ingest(result=result)
    text = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert "Time limit exceeded" in text and "Your code ran past the time limit" in text
    assert 'It was running test <code id="stopped-test">hidden-gqa-3</code>' in text
    assert "<dt>expected</dt><dd><code>2</code></dd>" in text.replace("\n", "").replace("  ", "")
    assert "speed vs reference" in text and "0.54×" in text and "higher is better" in text
    assert (
        'id="bandwidth"' in text
        and "4 MiB" in text
        and "&#x27;busbw&#x27;" not in text
        and "{&#x27;size" not in text
        and "busbw (GB/s)" in text
    )
    assert text.count('<details class="metric-table" open>') == 1 and text.count('<details class="metric-table">') == 4
    assert "traces: throughput (higher is better), one row each" in text
    assert "SECRET" not in text
