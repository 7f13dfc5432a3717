from django.urls import path

from . import views

app_name = "drills"
urlpatterns = [
    path("", views.index, name="index"),
    path("review/", views.review, name="review"),
    path("module/<slug:module_slug>/", views.module, name="module"),
]
