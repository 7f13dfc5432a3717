from django.urls import path

from . import views

app_name = "labs"
urlpatterns = [
    path("", views.index, name="index"),
    path("submissions/<int:pk>/", views.submission, name="submission"),
    path("submissions/<int:pk>/source/", views.submission_source, name="submission_source"),
    path("<slug:slug>/draft/", views.draft, name="draft"),
    path("<slug:slug>/", views.detail, name="detail"),
]
