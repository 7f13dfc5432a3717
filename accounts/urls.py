from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import views
from .forms import ThrottledAuthenticationForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(form_class=ThrottledAuthenticationForm), name="login"),
    path("", include("django.contrib.auth.urls")),
]
