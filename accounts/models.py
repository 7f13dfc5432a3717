"""Which address an account has proved it reads (by following a signed link); only that address finds invitations."""

from django.conf import settings
from django.db import models


class VerifiedEmail(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verified_email")
    email = models.EmailField(unique=True)  # lower-case; one account per proved address
    verified_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.user} <{self.email}>"
