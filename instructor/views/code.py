"""A lab's code across the cohort: every learner's latest submit as a zip, and how alike they are."""

import io
import zipfile

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import slugify

from cohorts import selectors
from cohorts.access import cohort_view
from instructor import sources
from instructor.similarity import similar_pairs


def _latest(cohort, lab_slug: str):
    lab = sources.lab_get(lab_slug)
    if lab is None:
        raise Http404("No such lab.")
    submits = sources.latest_submits(user_ids=selectors.member_ids(cohort=cohort), lab_slug=lab_slug)
    return lab, sorted(submits, key=lambda sub: sub.learner.get_username())


@cohort_view
def lab_code_zip(request, cohort, lab_slug: str):
    """learner/lab_#id.py for each learner's newest graded submit, and a manifest of who, when and what score."""
    lab, submits = _latest(cohort, lab_slug)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        lines = ["learner,submission,submitted_at_utc,verdict,score,max_score,file"]
        for sub in submits:
            name = f"{slugify(sub.learner.get_username()) or 'learner'}-{sub.learner_id}/{lab.slug}_{sub.pk}.py"
            archive.writestr(name, sub.source or "")
            lines.append(
                f"{sub.learner.get_username()},{sub.pk},{sub.created_at.isoformat()},{sub.verdict},"
                f"{'' if sub.score is None else sub.score},{'' if sub.max_score is None else sub.max_score},{name}"
            )
        archive.writestr("manifest.csv", "\n".join(lines) + "\n")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{slugify(cohort.name)}-{lab.slug}-{stamp}.zip"'
    return response


@cohort_view
def lab_similarity(request, cohort, lab_slug: str):
    lab, submits = _latest(cohort, lab_slug)
    pairs = similar_pairs(submits, starter=lab.starter_code or "")
    return render(
        request,
        "instructor/similarity.html",
        {"cohort": cohort, "lab": lab, "lab_slug": lab.slug, "compared": len(submits), "pairs": pairs},
    )
