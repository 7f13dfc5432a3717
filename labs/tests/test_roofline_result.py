"""A paged-attention result with the roofline figure renders it on the submission page."""
import json
import re

import pytest
from django.urls import reverse

from gpu_worker.graders.paged_attention import timing_case
from gpu_worker.graders.paged_roofline import TITLE, add_roofline
from gpu_worker.graders.result import Report
from labs.services import result_ingest
from labs.tests.factories import SubmissionFactory, result_json, speed_lab

pytestmark = pytest.mark.django_db


def test_roofline_figure_gets_its_plot_container(learner_client, learner):
    report = Report("paged-attention", "submit")
    add_roofline(report, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=8.0, reference_ms=4.0)
    submission = SubmissionFactory(learner=learner, lab=speed_lab("paged-attention"))
    result = result_json(submission.pk) | {"lab": "paged-attention", "plots": report.plots}
    result["metrics"] |= report.metrics | {"median_ms": 8.0, "reference_ms": 4.0}
    result_ingest(result=result)
    page = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert f"<figcaption>{TITLE}</figcaption>" in page
    assert f'<div class="plot" data-plot role="img" aria-label="{TITLE}"></div>' in page
    figures = [json.loads(body) for body in re.findall(r'<script[^>]*type="application/json">(.*?)</script>', page,
                                                       re.S)]
    [roofline] = [f for f in figures if f.get("layout", {}).get("xaxis", {}).get("type") == "log"]
    assert [trace["name"] for trace in roofline["data"][1:]] == ["yours", "torch reference"]
