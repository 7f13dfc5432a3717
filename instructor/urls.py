from django.urls import path

from instructor.views import cohorts, export, labs, overrides, progress, queue

app_name = "instructor"
urlpatterns = [
    path("", cohorts.index, name="index"),
    path("join/", cohorts.join, name="join"),
    path("queue/", queue.queue_health, name="queue"),
    path("c/<int:cohort_id>/", progress.matrix, name="matrix"),
    path("c/<int:cohort_id>/learners/<int:learner_id>/", progress.learner, name="learner"),
    path("c/<int:cohort_id>/roster/", cohorts.roster, name="roster"),
    path("c/<int:cohort_id>/roster/add/", cohorts.roster_add, name="roster_add"),
    path("c/<int:cohort_id>/roster/<int:learner_id>/remove/", cohorts.roster_remove, name="roster_remove"),
    path("c/<int:cohort_id>/code/rotate/", cohorts.code_rotate, name="code_rotate"),
    path("c/<int:cohort_id>/policies/", cohorts.policy_set, name="policy_set"),
    path("c/<int:cohort_id>/weights/", cohorts.weight_set, name="weight_set"),
    path("c/<int:cohort_id>/labs/<slug:lab_slug>/", labs.lab, name="lab"),
    path("c/<int:cohort_id>/labs/<slug:lab_slug>/regrade/", labs.lab_regrade, name="lab_regrade"),
    path("c/<int:cohort_id>/submissions/<int:submission_id>/", labs.submission, name="submission"),
    path("c/<int:cohort_id>/submissions/<int:submission_id>/regrade/", labs.submission_regrade,
         name="submission_regrade"),
    path("c/<int:cohort_id>/overrides/", overrides.overrides, name="overrides"),
    path("c/<int:cohort_id>/overrides/<int:override_id>/undo/", overrides.override_undo, name="override_undo"),
    path("c/<int:cohort_id>/export.csv", export.export_csv, name="export"),
]
