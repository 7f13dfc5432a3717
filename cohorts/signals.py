"""On sign-in, point a learner at the cohort invitations waiting for their address."""

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.urls import reverse

from cohorts.selectors import invitations_for


@receiver(user_logged_in, dispatch_uid="instructor-invitations-waiting")
def invitations_waiting(sender, request, user, **kwargs):
    count = invitations_for(user=user).count() if request is not None else 0
    if count:
        messages.info(
            request,
            f"{count} cohort invitation{'s' if count != 1 else ''} waiting for you: "
            f"accept or decline at {reverse('instructor:join')}.",
            fail_silently=True,
        )  # a test client's force_login has no message storage
