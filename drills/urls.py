from django.urls import path

from . import views

app_name = "drills"
urlpatterns = [
    path("", views.index, name="index"),
]
