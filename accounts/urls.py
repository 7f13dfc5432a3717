from django.urls import include, path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("email/", views.email_status, name="email_status"),
    path("time-zone/", views.time_zone_set, name="time_zone_set"),
    path("verify/<str:token>/", views.email_verify, name="email_verify"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("", include("django.contrib.auth.urls")),
]
