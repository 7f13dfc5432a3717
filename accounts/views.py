from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect, render
from django.urls import reverse

from .forms import SignupForm, ThrottledAuthenticationForm
from .roles import is_instructor


class LoginView(auth_views.LoginView):
    """Instructors land on their dashboard, learners on the course; a `next` link still wins for both."""

    form_class = ThrottledAuthenticationForm

    def get_default_redirect_url(self):
        if is_instructor(self.request.user):
            return reverse("instructor:index")
        return super().get_default_redirect_url()


def signup(request):
    if request.user.is_authenticated:
        return redirect("course:index")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, f"Welcome, {user.username}. Your progress is saved from now on.")
        return redirect("course:index")
    return render(request, "registration/signup.html", {"form": form})
