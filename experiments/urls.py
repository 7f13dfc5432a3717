from django.urls import path

import common.converters  # noqa: F401  registers <id:...>

from . import views

app_name = "experiments"
urlpatterns = [
    path("", views.index, name="index"),
    path("compare/", views.compare, name="compare"),
    path("<id:pk>/", views.detail, name="detail"),
]
