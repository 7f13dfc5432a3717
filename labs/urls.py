from django.urls import path

import common.converters  # noqa: F401  registers <id:...>

from . import leaderboard_views, views

app_name = "labs"
urlpatterns = [
    path("", views.index, name="index"),
    path("submissions/<id:pk>/", views.submission, name="submission"),
    path("submissions/<id:pk>/source/", views.submission_source, name="submission_source"),
    path("submissions/<id:pk>/regrade-request/", views.regrade_request, name="regrade_request"),
    path("<slug:slug>/leaderboard/", leaderboard_views.board, name="leaderboard"),
    path(
        "<slug:slug>/leaderboard/cohorts/<id:cohort_id>/hidden/",
        leaderboard_views.board_hide,
        name="leaderboard_hide",
    ),
    path("<slug:slug>/draft/", views.draft, name="draft"),
    path("<slug:slug>/", views.detail, name="detail"),
]
