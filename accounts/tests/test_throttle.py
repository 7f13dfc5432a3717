"""Sign-in throttling: growing delays per account; a busy address never refuses a clean account; Redis shared."""

import time
import uuid

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"
RIGHT = "correct-horse-battery"
LIMITS = {"ACCOUNT_FAILURES": 5, "DELAY_S": 60, "ADDRESS_FAILURES": 12, "WINDOW_S": 900, "ADDRESS_HEADER": ""}


def sign_in(client, username, password, address="10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


@override_settings(LOGIN_THROTTLE=LIMITS)
def test_too_many_wrong_passwords_lock_the_account_even_against_the_right_one(client, learner):
    for _ in range(5):
        assert b"Please enter a correct username and password" in sign_in(client, "ada", "guess").content
    response = sign_in(client, "ada", RIGHT)
    assert response.status_code == 200 and not signed_in(client)
    assert "Too many failed sign-in attempts. Try again in 1 minute," in response.content.decode()
    # The lock follows the account, whatever the case of the name or the address it comes from.
    response = sign_in(client, "ADA", RIGHT, address="10.9.9.9")
    assert "Too many failed sign-in attempts" in response.content.decode() and not signed_in(client)


@override_settings(LOGIN_THROTTLE=LIMITS)
def test_a_success_clears_the_account_count(client, learner):
    for _ in range(4):
        sign_in(client, "ada", "guess")
    assert sign_in(client, "ada", RIGHT).status_code == 302
    client.logout()
    for _ in range(4):
        sign_in(client, "ada", "guess")
    assert sign_in(client, "ada", RIGHT).status_code == 302


@override_settings(LOGIN_THROTTLE=LIMITS)
def test_one_busy_address_never_refuses_the_right_password_of_an_account_not_under_attack(client, learner):
    for number in range(12):  # a class behind one NAT, or a guesser among them, fails many times
        sign_in(client, f"someone{number}", "guess")
    assert sign_in(client, "ada", RIGHT).status_code == 302


@override_settings(LOGIN_THROTTLE=LIMITS)
def test_a_held_address_cannot_keep_guessing_an_account_that_failed(client, learner):
    for number in range(12):
        sign_in(client, f"someone{number}", "guess")
    response = sign_in(client, "someone3", "guess-again")
    assert "Too many failed sign-in attempts" in response.content.decode()
    sign_in(client, "ada", "one-typo")
    response = sign_in(client, "ada", RIGHT)
    assert "Too many failed sign-in attempts" in response.content.decode() and not signed_in(client)
    assert sign_in(client, "ada", RIGHT, address="10.0.0.2").status_code == 302  # another address is not held


@override_settings(LOGIN_THROTTLE=LIMITS)
def test_delays_grow_with_each_failure_past_the_free_ones(client, learner):
    from accounts import throttle

    waits = []
    for _ in range(8):
        throttle.failure_record(username="ada", address="10.0.0.9")
        waits.append(throttle.wait_s(username="ada", address="10.0.0.9"))
    assert waits[:4] == [0, 0, 0, 0]
    assert waits[4:] == [60, 120, 240, 480]


class _Later:
    """The time module as the throttle reads it, `ahead_s` seconds later than now."""

    def __init__(self, ahead_s: float):
        self.ahead_s = ahead_s

    def time(self) -> float:
        return time.time() + self.ahead_s


@override_settings(LOGIN_THROTTLE={**LIMITS, "WINDOW_S": 60})
def test_the_lock_ends_with_the_window(client, learner, monkeypatch):
    from accounts import throttle

    for _ in range(5):
        sign_in(client, "ada", "guess")
    response = sign_in(client, "ada", RIGHT)
    assert "Try again in 1 minute," in response.content.decode()
    monkeypatch.setattr(throttle, "time", _Later(59))
    assert "Try again in 1 minute," in sign_in(client, "ada", RIGHT).content.decode()  # a second to go: still held
    monkeypatch.setattr(throttle, "time", _Later(61))  # the window has passed: the right password signs in
    assert sign_in(client, "ada", RIGHT).status_code == 302


@override_settings(LOGIN_THROTTLE={**LIMITS, "ADDRESS_HEADER": "HTTP_X_FORWARDED_FOR"})
def test_behind_a_proxy_the_forwarded_address_is_counted(client, learner):
    for number in range(12):
        client.post(
            LOGIN,
            {"username": "ada" if number == 11 else f"u{number}", "password": "x"},
            REMOTE_ADDR="10.0.0.254",
            HTTP_X_FORWARDED_FOR="spoofed, 203.0.113.7",
        )
    held = client.post(
        LOGIN, {"username": "ada", "password": RIGHT}, REMOTE_ADDR="10.0.0.254", HTTP_X_FORWARDED_FOR="203.0.113.7"
    )
    assert "Too many failed sign-in attempts" in held.content.decode()
    other = client.post(
        LOGIN, {"username": "ada", "password": RIGHT}, REMOTE_ADDR="10.0.0.254", HTTP_X_FORWARDED_FOR="198.51.100.4"
    )
    assert other.status_code == 302


def test_counts_are_shared_through_redis(client, learner, redis_url):
    """Failures counted by one client are seen by another: the counts live in Redis, not in the process."""
    redis_cache = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": f"throttle-test-{uuid.uuid4().hex}",
        }
    }  # keys expire with the window
    with override_settings(CACHES=redis_cache, LOGIN_THROTTLE=LIMITS):
        assert isinstance(caches["default"], RedisCache)
        for _ in range(5):
            sign_in(client, "ada", "guess")
        response = sign_in(Client(), "ada", RIGHT, address="10.0.0.3")
        assert "Too many failed sign-in attempts" in response.content.decode()
