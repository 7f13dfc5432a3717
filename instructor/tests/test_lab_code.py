"""A lab's code across a cohort: the zip of latest submits, and the similarity report (starter code left out)."""

import io
import zipfile

import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from cohorts.tests.factories import CohortFactory
from labs.models import Submission
from labs.tests.factories import LabFactory, SubmissionFactory

pytestmark = pytest.mark.django_db
DONE = {"mode": Submission.Mode.SUBMIT, "status": "done", "verdict": "accepted", "score": 1.0, "max_score": 1.0}
STARTER = "def kv_bytes_per_token(config, dtype_bytes):\n    raise NotImplementedError\n"
HONEST = """def kv_bytes_per_token(config, dtype_bytes):
    layers = config['num_hidden_layers']
    heads = config.get('num_key_value_heads', config['num_attention_heads'])
    head_dim = config['hidden_size'] // config['num_attention_heads']
    return 2 * layers * heads * head_dim * dtype_bytes
"""
OTHER = """def kv_bytes_per_token(config, dtype_bytes):
    total = 0
    for _ in range(config['num_hidden_layers']):
        total += 2 * config['hidden_size'] * dtype_bytes // config['num_attention_heads']
    return total * config.get('num_key_value_heads', config['num_attention_heads'])
"""


@pytest.fixture
def class_of_three(instructor):
    lab = LabFactory(starter_code=STARTER)
    learners = [UserFactory(username=name) for name in "abc"]
    cohort = CohortFactory(name="Spring 27", instructors=[instructor], learners=learners)
    sources = {"a": HONEST, "b": HONEST.replace("layers", "n_layers").replace("heads", "kv"), "c": OTHER}
    made = {}
    for learner in learners:
        SubmissionFactory(learner=learner, lab=lab, source=STARTER, **DONE)  # an older one
        made[learner.username] = SubmissionFactory(learner=learner, lab=lab, source=sources[learner.username], **DONE)
    return cohort, lab, made


def test_the_zip_holds_each_learners_latest_submit_and_a_manifest(instructor_client, class_of_three):
    cohort, lab, made = class_of_three
    response = instructor_client.get(reverse("instructor:lab_code_zip", args=[cohort.pk, lab.slug]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = sorted(archive.namelist())
    assert len(names) == 4 and "manifest.csv" in names
    a_file = next(name for name in names if name.startswith("a-"))
    assert archive.read(a_file).decode() == HONEST and a_file.endswith(f"_{made['a'].pk}.py")
    assert archive.read("manifest.csv").decode().count("\n") == 4


def test_renamed_copies_are_flagged_and_different_code_and_the_starter_are_not(instructor_client, class_of_three):
    cohort, lab, made = class_of_three
    page = instructor_client.get(reverse("instructor:lab_similarity", args=[cohort.pk, lab.slug])).content.decode()
    assert "3 compared" in page
    rows = page.split('id="similar-pairs"')[1]
    assert rows.count("<tr>") == 2  # the header and one pair: a and b
    assert f"#{made['a'].pk}" in rows and f"#{made['b'].pk}" in rows and f"#{made['c'].pk}" not in rows
    assert "100%" in rows
