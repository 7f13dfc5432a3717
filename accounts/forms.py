from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User

from . import throttle


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True, help_text="Used only to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args, address: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.address = address

    def clean_email(self):
        # No check against other accounts: the answer must not tell who has an account. An address
        # counts for invitations only once its owner follows the link mailed to it (verification.py).
        return self.cleaned_data["email"].strip().lower()

    def clean(self):
        data = super().clean()
        if not self.errors and not throttle.signup_allowed(address=self.address):
            raise forms.ValidationError("Too many sign-ups from your network this hour; try again later.")
        return data


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
