"""Drill URLs: index, module, review queue, mock interview, and each exercise with its posts."""

from django.urls import path

import common.converters  # noqa: F401  registers <id:...>

from . import mock_views, review_views, views

app_name = "drills"
urlpatterns = [
    path("", views.index, name="index"),
    path("review/", views.review, name="review"),
    path("review/stats/", review_views.review_stats_page, name="review_stats"),
    path("module/<slug:module_slug>/", views.module, name="module"),
    path("mock/", mock_views.mock_start, name="mock"),
    path("mock/<id:pk>/", mock_views.mock_run, name="mock_run"),
    path("mock/<id:pk>/answer/", mock_views.mock_answer, name="mock_answer"),
    path("mock/<id:pk>/rate/", mock_views.mock_rate, name="mock_rate"),
    path("mock/<id:pk>/finish/", mock_views.mock_finish, name="mock_finish"),
    path("mock/<id:pk>/report/", mock_views.mock_report_page, name="mock_report"),
    path("<slug:module_slug>/<slug:kind>/<slug:slug>/", views.drill_detail, name="drill"),
    path("<slug:module_slug>/<slug:kind>/<slug:slug>/answer/", views.drill_answer, name="answer"),
    path("<slug:module_slug>/card/<slug:slug>/rate/", views.card_rate, name="rate"),
    path("<slug:module_slug>/card/<slug:slug>/undo/", review_views.card_undo, name="undo"),
]
