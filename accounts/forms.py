from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User

from . import throttle


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True, help_text="Used only to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email already exists.")
        return email


class ThrottledAuthenticationForm(AuthenticationForm):
    """Sign-in that refuses, even with the right password, once an account or address failed too often."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = throttle.client_address(self.request)
        wait = throttle.wait_s(username=username, address=address)
        if wait:
            minutes = max(1, round(wait / 60))
            raise forms.ValidationError(
                f"Too many failed sign-in attempts. Try again in {minutes} minute{'s' if minutes != 1 else ''}, "
                "or reset your password.",
                code="throttled",
            )
        try:
            data = super().clean()
        except forms.ValidationError:
            throttle.failure_record(username=username, address=address)
            raise
        throttle.success_record(username=username)
        return data
