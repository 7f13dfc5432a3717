from django.urls import path

from . import views

app_name = "course"
urlpatterns = [
    path("", views.index, name="index"),
    path("widgets/kv/", views.kv_calculator, name="kv_calculator"),
    path("<slug:module_slug>/", views.section, name="module"),
    path("<slug:module_slug>/<slug:section_slug>/", views.section, name="section"),
    path("<slug:module_slug>/<slug:section_slug>/read/", views.mark_read, name="mark_read"),
]
