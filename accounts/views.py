from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from common import timezones

from . import throttle
from .forms import SignupForm, ThrottledAuthenticationForm
from .roles import is_instructor
from .verification import is_verified, resend_refusal, verification_confirm, verification_send


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
    form = SignupForm(request.POST or None, address=throttle.client_address(request))
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        verification_send(user=user, request=request)
        messages.success(
            request,
            f"Welcome, {user.username}. Your progress is saved from now on. "
            f"We sent a link to {user.email}: open it to confirm your address.",
        )
        return redirect("course:index")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def email_verify(request, token):
    if verification_confirm(user=request.user, token=token):
        messages.success(request, f"Thank you: {request.user.email} is confirmed.")
    else:
        messages.error(
            request, "That link is not valid for this account, or it has expired. Send yourself a new one below."
        )
        return redirect("email_status")
    return redirect("course:index")


@login_required
def email_status(request):
    """Whether the signed-in account's address is confirmed; POST mails a new link (a few a day, a minute apart)."""
    if request.method == "POST":
        refusal = resend_refusal(user=request.user)
        if refusal:
            messages.error(request, refusal)
        else:
            verification_send(user=request.user, request=request)
            messages.success(request, f"We sent a new link to {request.user.email}. It works for 3 days.")
        return redirect("email_status")
    return render(
        request,
        "registration/email_status.html",
        {"confirmed": is_verified(request.user), "zones": sorted(timezones.known_zones())},
    )


@require_POST
def time_zone_set(request):
    """Show times in the zone chosen here (an IANA name), or in the browser's again when none is chosen."""
    name = (request.POST.get("time_zone") or "").strip()
    response = redirect("email_status" if request.user.is_authenticated else "home")
    if not name:
        response.delete_cookie(timezones.COOKIE)
        response.delete_cookie(timezones.CHOSEN_COOKIE)
        messages.success(request, "Times follow your browser's time zone again.")
    elif timezones.zone_named(name) is None:
        messages.error(request, f"{name[:64]!r} is not a time zone we know; pick one from the list.")
    else:
        for cookie, value in ((timezones.COOKIE, name), (timezones.CHOSEN_COOKIE, "1")):
            response.set_cookie(cookie, value, max_age=timezones.COOKIE_MAX_AGE_S, samesite="Lax")
        messages.success(request, f"Times are shown in {name} from now on.")
    return response
