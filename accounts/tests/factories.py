"""Factories for accounts tests: users, and the address a user has proved (accounts.VerifiedEmail)."""

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from accounts.models import VerifiedEmail


def _hashed(raw: str) -> str:
    """Stored as create_user stores a password; the default, no password, stores "", which none matches."""
    return make_password(raw) if raw else ""


class UserFactory(factory.django.DjangoModelFactory):
    """`UserFactory(password="...")` for a user a test signs in with that password."""

    class Meta:
        model = get_user_model()

    username = factory.Sequence(lambda n: f"learner{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.Transformer("", transform=_hashed)


class VerifiedEmailFactory(factory.django.DjangoModelFactory):
    """The user's own address, proved (as after following the mailed link)."""

    class Meta:
        model = VerifiedEmail

    user = factory.SubFactory(UserFactory)
    email = factory.SelfAttribute("user.email")
