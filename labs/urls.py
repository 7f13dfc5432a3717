from django.urls import path

from . import views

app_name = "labs"
urlpatterns = [
    path("", views.index, name="index"),
    path("submissions/<int:pk>/", views.submission, name="submission"),
    path("<slug:slug>/", views.detail, name="detail"),
]
