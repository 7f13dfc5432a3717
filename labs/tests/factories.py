"""Factories for labs tests: a kv-sizing lab, submissions in any state, drafts and regrade requests."""

from datetime import timedelta

import factory

from accounts.tests.factories import UserFactory
from gpu_worker.graders.result import Report
from labs.models import Lab, LabDraft, RegradeRequest, Submission

KV_STARTER = """def kv_bytes_per_token(config: dict, dtype_bytes: int) -> int:
    raise NotImplementedError


def num_gpu_blocks(gpu_memory_bytes, gpu_memory_utilization, weight_bytes, activation_bytes,
                   block_size, bytes_per_token) -> int:
    raise NotImplementedError


def max_concurrent_seqs(num_blocks, block_size, seq_len) -> int:
    raise NotImplementedError
"""


class LabFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lab
        django_get_or_create = ("slug",)

    slug = "kv-sizing"
    title = "KV cache sizing"
    module_slug = "kv-cache"
    order = 1
    summary = "How many bytes a token costs, and how many sequences fit."
    statement_html = "<p>Size the KV cache.</p>"
    contract = "def kv_bytes_per_token(config: dict, dtype_bytes: int) -> int\n"
    starter_code = KV_STARTER
    limits = {"wall_s": 20.0}

    class Params:
        # No statement, contract, starter code or limits: a lab that is only its slug, title and module.
        bare = factory.Trait(summary="", statement_html="", contract="", starter_code="", limits=factory.Dict({}))


class SubmissionFactory(factory.django.DjangoModelFactory):
    """`at=when`: sent at `when` (created and queued then) and, when done, finished 5 s later."""

    class Meta:
        model = Submission
        skip_postgeneration_save = True

    learner = factory.SubFactory(UserFactory)
    lab = factory.SubFactory(LabFactory)
    mode = "submit"
    source = "def f():\n    return 1\n"
    status = "queued"

    @factory.post_generation
    def at(submission, create, extracted, **kwargs):
        if not (create and extracted):
            return  # auto_now_add fields take no value on create: they are moved after it
        finished_at = extracted + timedelta(seconds=5) if submission.status == "done" else submission.finished_at
        Submission.objects.filter(pk=submission.pk).update(
            created_at=extracted, queued_at=extracted, finished_at=finished_at
        )
        submission.refresh_from_db()


class LabDraftFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = LabDraft

    learner = factory.SubFactory(UserFactory)
    lab = factory.SubFactory(LabFactory)
    source = "# a draft\n"


class RegradeRequestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RegradeRequest

    submission = factory.SubFactory(SubmissionFactory, status="done", verdict="wrong_answer", score=0.0, max_score=1.0)
    learner = factory.SelfAttribute("submission.learner")
    reason = "Please look at it again."


def worker_tests(hidden_passed: bool) -> list[dict]:
    """One public and one hidden kv-sizing test, written by the worker's own Report: what a learner may see of
    the hidden one is the worker's decision (its message here holds a SECRET the worker withholds)."""
    report = Report("kv-sizing", "submit")
    report.declare("kv-llama3-8b-fp16", "public")
    report.declare("hidden-gqa-3", "hidden")
    report.record("kv-llama3-8b-fp16", True, "public says 131072")
    report.record("hidden-gqa-3", hidden_passed, "SECRET expected 98304")
    return report.to_dict()["tests"]


def result_json(submission_id: int, mode: str = "submit", verdict: str = "accepted", score: float = 1.0) -> dict:
    """A result as the worker sends it (see docs/architecture.md), with one public and one hidden test."""
    return {
        "submission_id": submission_id,
        "lab": "kv-sizing",
        "mode": mode,
        "verdict": verdict,
        "score": score if mode == "submit" else None,
        "max_score": 1.0 if mode == "submit" else None,
        "message": "",
        "metrics": {"device": "cpu", "grade_s": 0.5},
        "tests": worker_tests(hidden_passed=verdict == "accepted"),
        "plots": [
            {
                "title": "KV per sequence",
                "figure": {
                    "data": [{"type": "scatter", "x": [1, 2], "y": [3, 4]}],
                    "layout": {"title": {"text": "KV"}},
                },
            }
        ],
        "stdout": "hello from the learner\n",
        "worker": {"host": "gpu-host-1", "torch": "2.13.0"},
    }


SPEED_LABS = {
    "paged-attention": ("Paged attention kernel", "paged-attention"),
    "scheduler": ("Scheduler policy", "scheduling"),
    "ring-allreduce": ("Ring all-reduce", "collectives"),
}


def speed_lab(slug: str) -> Lab:
    title, module_slug = SPEED_LABS[slug]
    return LabFactory(slug=slug, title=title, module_slug=module_slug, order=len(slug))


def timed_result(lab_slug: str, figure: float, *, gpu: str | None = None, workload: str | None = None) -> dict:
    """A result whose metrics hold `figure` where that lab's grader puts its trusted timing, on the CPU or
    on the GPU model named `gpu` (as the worker reports it)."""
    device = "cuda" if gpu else "cpu"
    metrics = {"device": device, "grade_s": 1.0}
    if lab_slug == "paged-attention":
        metrics.update(median_ms=figure, reference_ms=2.0, timing_context=1024, timing_batch=4)
    elif lab_slug == "scheduler":  # `figure` on the board's fixed hidden trace; the scored traces differ
        metrics["traces"] = {
            "bursty-7": {"yours": {"throughput": figure - 0.5}},
            "hidden-bursty": {"yours": {"throughput": 99.0}},
        }
        metrics["board"] = {"throughput": figure, "requests": 24}
        if workload is not None:  # the board workload's fingerprint, as workers report it
            metrics["board"]["workload"] = workload
    else:
        metrics["bandwidth"] = [
            {"size": numel * 4, "count": numel, "busbw": figure / 10 if numel < 1048576 else figure}
            for numel in (1024, 16384, 262144, 1048576)
        ]
        metrics["board"] = {"busbw": figure, "size": 4 * 1048576, "ranks": 4}
    return {
        "verdict": "accepted",
        "score": 1.0,
        "max_score": 1.0,
        "tests": [],
        "plots": [],
        "metrics": metrics,
        "worker": {"host": "w1", "device": device, "cuda": gpu},
    }


def timed_submission(
    learner,
    lab: Lab,
    figure: float,
    *,
    gpu: str | None = None,
    verdict: str = "accepted",
    mode: str = "submit",
    status: str = "done",
    workload: str | None = None,
) -> Submission:
    return SubmissionFactory(
        learner=learner,
        lab=lab,
        mode=mode,
        status=status,
        verdict=verdict,
        score=1.0 if verdict == "accepted" else 0.0,
        max_score=1.0,
        result=timed_result(lab.slug, figure, gpu=gpu, workload=workload),
    )


def roofline_result(submission_id: int, *, yours_ms: float = 8.0, reference_ms: float = 4.0) -> dict:
    """A paged-attention submit result holding the grader's own roofline figure and metrics, timed on the CPU
    on the fixed workload (context 1024)."""
    from gpu_worker.graders.paged_attention import timing_case  # late: the graders import torch
    from gpu_worker.graders.paged_roofline import add_roofline
    from gpu_worker.graders.result import Report

    report = Report("paged-attention", "submit")
    add_roofline(
        report, case=timing_case(1024), element_bytes=4, dev="cpu", yours_ms=yours_ms, reference_ms=reference_ms
    )
    result = result_json(submission_id) | {"lab": "paged-attention", "plots": report.plots}
    result["metrics"] |= report.metrics | {"median_ms": yours_ms, "reference_ms": reference_ms}
    return result
