"""A paged-attention result with the roofline figure renders it on the submission page."""

import json
import re

import pytest
from django.urls import reverse

from gpu_worker.graders.paged_roofline import TITLE
from labs.services import result_ingest
from labs.tests.factories import SubmissionFactory, roofline_result, speed_lab

pytestmark = pytest.mark.django_db


def test_roofline_figure_gets_its_plot_container(learner_client, learner):
    submission = SubmissionFactory(learner=learner, lab=speed_lab("paged-attention"))
    result_ingest(result=roofline_result(submission.pk, yours_ms=8.0, reference_ms=4.0))
    page = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert f"<figcaption>{TITLE}</figcaption>" in page
    assert f'<div class="plot" data-plot role="img" aria-label="{TITLE}"></div>' in page
    figures = [
        json.loads(body) for body in re.findall(r'<script[^>]*type="application/json">(.*?)</script>', page, re.S)
    ]
    [roofline] = [f for f in figures if f.get("layout", {}).get("xaxis", {}).get("type") == "log"]
    assert [trace["name"] for trace in roofline["data"][1:]] == ["yours", "torch reference"]
