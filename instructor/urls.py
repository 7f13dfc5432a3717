from django.urls import path

import common.converters  # noqa: F401  registers <id:...>
from instructor.views import code, cohorts, export, feedback, grading, labs, overrides, progress, queue

app_name = "instructor"
urlpatterns = [
    path("", cohorts.index, name="index"),
    path("join/", cohorts.join, name="join"),
    path(
        "invitations/<id:invitation_id>/accept/", cohorts.invitation_answer, {"accept": True}, name="invitation_accept"
    ),
    path(
        "invitations/<id:invitation_id>/decline/",
        cohorts.invitation_answer,
        {"accept": False},
        name="invitation_decline",
    ),
    path("queue/", queue.queue_health, name="queue"),
    path("c/<id:cohort_id>/", progress.matrix, name="matrix"),
    path("c/<id:cohort_id>/learners/<id:learner_id>/", progress.learner, name="learner"),
    path(
        "c/<id:cohort_id>/learners/<id:learner_id>/modules/<slug:module_slug>/",
        progress.learner_module,
        name="learner_module",
    ),
    path("c/<id:cohort_id>/learners/<id:learner_id>/extensions/", grading.extension_set, name="extension_set"),
    path("c/<id:cohort_id>/extensions/<id:extension_id>/remove/", grading.extension_remove, name="extension_remove"),
    path("c/<id:cohort_id>/roster/", cohorts.roster, name="roster"),
    path("c/<id:cohort_id>/roster/invite/", cohorts.roster_invite, name="roster_invite"),
    path(
        "c/<id:cohort_id>/invitations/<id:invitation_id>/withdraw/",
        cohorts.invitation_withdraw,
        name="invitation_withdraw",
    ),
    path("c/<id:cohort_id>/roster/<id:learner_id>/remove/", cohorts.roster_remove, name="roster_remove"),
    path("c/<id:cohort_id>/code/rotate/", cohorts.code_rotate, name="code_rotate"),
    path("c/<id:cohort_id>/terms/", cohorts.lab_terms_set, name="lab_terms_set"),
    path("c/<id:cohort_id>/weights/", cohorts.weight_set, name="weight_set"),
    path("c/<id:cohort_id>/labs/<slug:lab_slug>/", labs.lab, name="lab"),
    path("c/<id:cohort_id>/labs/<slug:lab_slug>/regrade/", labs.lab_regrade, name="lab_regrade"),
    path("c/<id:cohort_id>/labs/<slug:lab_slug>/release/", grading.lab_release, name="lab_release"),
    path("c/<id:cohort_id>/labs/<slug:lab_slug>/code.zip", code.lab_code_zip, name="lab_code_zip"),
    path("c/<id:cohort_id>/labs/<slug:lab_slug>/similarity/", code.lab_similarity, name="lab_similarity"),
    path("c/<id:cohort_id>/submissions/<id:submission_id>/", labs.submission, name="submission"),
    path(
        "c/<id:cohort_id>/submissions/<id:submission_id>/regrade/", labs.submission_regrade, name="submission_regrade"
    ),
    path("c/<id:cohort_id>/submissions/<id:submission_id>/comment/", feedback.comment_add, name="comment_add"),
    path("c/<id:cohort_id>/requests/", feedback.requests, name="requests"),
    path("c/<id:cohort_id>/requests/<id:request_id>/answer/", feedback.request_answer, name="request_answer"),
    path("c/<id:cohort_id>/overrides/", overrides.overrides, name="overrides"),
    path("c/<id:cohort_id>/overrides/<id:override_id>/undo/", overrides.override_undo, name="override_undo"),
    path("c/<id:cohort_id>/export.csv", export.export_csv, name="export"),
]
