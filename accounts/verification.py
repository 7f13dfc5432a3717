"""Proving an address: a signed link (TimestampSigner, 3 days) mailed to it; following it records VerifiedEmail."""

from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse

from .models import VerifiedEmail

SALT = "accounts.verify-email"
MAX_AGE_S = 3 * 24 * 3600
RESEND_GAP_S = 60  # one new link a minute per account
RESENDS_PER_DAY = 10


def is_verified(user) -> bool:
    if not user.is_authenticated or not user.email:
        return False
    return VerifiedEmail.objects.filter(user=user, email=user.email.strip().lower()).exists()


def verification_send(*, user, request) -> None:
    token = signing.TimestampSigner(salt=SALT).sign_object({"u": user.pk, "e": user.email.strip().lower()})
    link = request.build_absolute_uri(reverse("email_verify", args=[token]))
    body = f"Confirm that {user.email} is yours ({user.get_username()}) by opening {link}\n\nThe link works for 3 days."
    transaction.on_commit(lambda: send_mail("Confirm your address", body, None, [user.email], fail_silently=True))


def resend_refusal(*, user) -> str | None:
    """Why `user` may not be mailed a new link now (counted per account in the cache), or None (and it is counted)."""
    if not user.email:
        return "This account has no address to confirm."
    if is_verified(user):
        return f"{user.email} is confirmed already."
    if not cache.add(f"verify-resend:gap:{user.pk}", 1, timeout=RESEND_GAP_S):
        return "A link was sent less than a minute ago: look for it (and in your spam folder) before asking again."
    day_key = f"verify-resend:day:{user.pk}"
    cache.add(day_key, 0, timeout=24 * 3600)
    try:
        sent_today = cache.incr(day_key)
    except ValueError:  # expired between add and incr
        sent_today = 1
        cache.set(day_key, 1, timeout=24 * 3600)
    if sent_today > RESENDS_PER_DAY:
        return f"{RESENDS_PER_DAY} links went to this address today; try again tomorrow."
    return None


def verification_confirm(*, user, token: str) -> bool:
    """True when `token` proves the signed-in user's current address (and no other account proved it first)."""
    try:
        claim = signing.TimestampSigner(salt=SALT).unsign_object(token, max_age=MAX_AGE_S)
    except (signing.BadSignature, TypeError, ValueError):
        return False
    email = (user.email or "").strip().lower()
    if not isinstance(claim, dict) or claim.get("u") != user.pk or claim.get("e") != email:
        return False
    try:
        with transaction.atomic():
            VerifiedEmail.objects.update_or_create(user=user, defaults={"email": email})
    except IntegrityError:  # another account proved this address already
        return False
    return True
