"""Custom input on the lab page: the box starts with the lab's example, bad input is refused with the reason
before anything is queued, a good one goes to the worker with the Run, and the result shows both outputs."""

import base64
import json

import pytest
import redis
from django.urls import reverse

from gpu_worker.contract import custom_input as shapes
from gpu_worker.graders.result import Report
from labs.models import Submission
from labs.services import result_ingest, submission_create, submission_regrade
from labs.tests.factories import LabFactory
from testing.workers import client_app, purge_queues

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
EXAMPLE = shapes.example_text("kv-sizing")


@pytest.fixture
def lab():
    return LabFactory()


def _run(client, lab, custom: str, mode: str = "run", ticked: bool = True, **headers):
    data = {"source": "x = 1\n", "mode": mode, "custom_input": custom}
    if ticked:
        data["use_custom_input"] = "1"
    return client.post(reverse("labs:detail", args=[lab.slug]), data, headers=headers)


def test_the_box_starts_with_the_labs_example_and_says_what_the_keys_mean(learner_client, lab):
    text = learner_client.get(lab.get_absolute_url()).content.decode()
    assert 'id="custom-input-text" name="custom_input"' in text and "&quot;num_key_value_heads&quot;: 8" in text
    assert "Run on this input instead of the public cases" in text and "gpu_memory_utilization (0, 1]" in text
    assert 'id="use-custom-input" checked' not in text  # a plain Run stays on the public cases


@pytest.mark.parametrize(
    "custom, words",
    [
        ('{"config": ', "Custom input: the custom input is not valid JSON (line 1, column 12)"),
        (EXAMPLE.replace('"seq_len"', '"seq_length"'), "unknown key &#x27;seq_length&#x27;"),
        (EXAMPLE.replace('"dtype_bytes": 2', '"dtype_bytes": 3'), "dtype_bytes must be 1, 2, 4 or 8, got 3"),
        (EXAMPLE.replace('"block_size": 16', '"block_size": 0'), "block_size must be between 1 and 1,024, got 0"),
        ("[]", "the input must be a JSON object"),
        ("", "not valid JSON"),
    ],
)
def test_bad_custom_input_is_refused_above_the_editor_and_nothing_is_queued(learner_client, lab, custom, words):
    response = _run(learner_client, lab, custom, **HTMX)
    assert response.status_code == 400 and response["HX-Retarget"] == "#run-error-slot"
    assert words in response.content.decode()
    assert not Submission.objects.exists()


def test_without_javascript_a_refused_input_comes_back_in_the_box_ticked(learner_client, lab):
    response = _run(learner_client, lab, '{"world_size": 2}')
    text = response.content.decode()
    assert response.status_code == 400 and "config" in text and "is missing" in text
    assert "{&quot;world_size&quot;: 2}</textarea>" in text and 'id="use-custom-input" checked' in text


def test_an_unticked_box_or_a_submit_runs_the_usual_tests(learner_client, lab, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        assert _run(learner_client, lab, "not json", ticked=False, **HTMX).status_code == 200
    Submission.objects.update(status="done")
    with django_capture_on_commit_callbacks(execute=False):
        assert _run(learner_client, lab, EXAMPLE, mode="submit", **HTMX).status_code == 200
    assert [s.custom_input for s in Submission.objects.all()] == [None, None]


def test_a_lab_without_custom_input_shows_no_box_and_refuses_one(learner_client):
    other = LabFactory(slug="no-custom", title="A lab without custom input")
    assert 'id="custom-input"' not in learner_client.get(other.get_absolute_url()).content.decode()
    response = _run(learner_client, other, "{}", **HTMX)
    assert response.status_code == 400 and "takes no custom input" in response.content.decode()


def test_a_good_input_is_stored_checked_and_sent_with_the_run(
    learner, lab, redis_url, django_capture_on_commit_callbacks
):
    purge_queues(client_app(), "gpu")
    typed = '{"config": {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256}, "dtype_bytes": 1,\n'
    typed += '"gpu_memory_bytes": 1000000, "gpu_memory_utilization": 0.5, "weight_bytes": 0}'
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission = submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n", custom_text=typed)
    checked = {**json.loads(typed), "activation_bytes": 0, "block_size": 16, "seq_len": 2048}
    assert Submission.objects.get().custom_input == checked
    callbacks[0]()
    message = json.loads(redis.Redis.from_url(redis_url).rpop("gpu"))
    _, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert kwargs["mode"] == "run" and kwargs["custom"] == checked and kwargs["submission_id"] == submission.pk
    Submission.objects.update(status="done")
    with django_capture_on_commit_callbacks(execute=False):
        regrade = submission_regrade(submission=submission)
    assert regrade.custom_input == checked  # a regrade runs on the same input


def test_the_result_shows_the_input_and_both_outputs(learner_client, learner, lab, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        response = _run(learner_client, lab, EXAMPLE, **HTMX)
    assert response.status_code == 200 and "On your custom input." in response.content.decode()  # while it waits
    submission = Submission.objects.get()
    report = Report("kv-sizing", "run", submission.pk)  # the worker's own result builder
    report.declare("custom input", "public")
    report.record("custom input", False, "kv_bytes_per_token: yours 65536, reference 131072")
    report.custom = {
        "input": submission.custom_input,
        "rows": [{"label": "kv_bytes_per_token", "yours": "65536", "reference": "131072", "same": False}],
    }
    assert result_ingest(result=report.to_dict())
    text = learner_client.get(lab.get_absolute_url()).content.decode()  # the page opens on this result
    assert 'id="custom-input-shown"' in text and "&quot;gpu_memory_bytes&quot;: 85899345920" in text
    row = text[text.index('id="custom-outputs"') :]
    assert (
        "<code>kv_<wbr>bytes_<wbr>per_<wbr>token</code>" in row
        and "<code>65536</code>" in row
        and "<code>131072</code>" in row
    )
    assert 'class="bad">differs' in row
    assert 'id="use-custom-input" checked' in text  # the box holds the input of that run, ready to run again
    assert "<td>Run on custom input</td>" in text  # and the history says which runs were on one
