"""Tampered or malformed posts get a plain 400 and store nothing; CSRF guards every post."""

import json

import pytest
from django.test import Client

from accounts.tests.factories import UserFactory
from drills.models import Attempt, ReviewCard
from drills.services import attempt_submit
from drills.tests.helpers import choice_key, drill_url, fresh_round, match_fields

pytestmark = pytest.mark.django_db


def _spot(drills, round_token):
    return {"round": round_token, "line": "4"}


def _quiz(drills, round_token):
    return {"round": round_token, "choice": choice_key(drills["quiz"], "Memory density")}


def _match(drills, round_token):
    return {"round": round_token, **match_fields(drills["match"])}


def _without(fields, name):
    return {key: value for key, value in fields.items() if key != name}


def _first_item(drills):
    return next(iter(match_fields(drills["match"])))


BAD = {
    "spot: line missing": ("spot", lambda d, r: _without(_spot(d, r), "line"), "missing"),
    "spot: line not a number": ("spot", lambda d, r: {**_spot(d, r), "line": "four"}, "whole number"),
    "spot: line 0": ("spot", lambda d, r: {**_spot(d, r), "line": "0"}, "no line 0"),
    "spot: line past the end": ("spot", lambda d, r: {**_spot(d, r), "line": "99"}, "no line 99"),
    "spot: line sent twice": ("spot", lambda d, r: {**_spot(d, r), "line": ["4", "2"]}, "more than once"),
    "spot: round missing": ("spot", lambda d, r: _without(_spot(d, r), "round"), "round token"),
    "spot: round forged": ("spot", lambda d, r: {**_spot(d, r), "round": r[:-3] + "abc"}, "not valid"),
    "quiz: choice missing": ("quiz", lambda d, r: _without(_quiz(d, r), "choice"), "missing"),
    "quiz: choice not in question": ("quiz", lambda d, r: {**_quiz(d, r), "choice": "k0000000000"}, "not one of"),
    "quiz: choice of another question": (
        "quiz",
        lambda d, r: {**_quiz(d, r), "choice": choice_key(d["quiz_multi"], "More layers")},
        "not one of",
    ),
    "quiz: two answers to a single question": (
        "quiz",
        lambda d, r: {
            **_quiz(d, r),
            "choice": [choice_key(d["quiz"], "Memory density"), choice_key(d["quiz"], "Weight size")],
        },
        "exactly one",
    ),
    "quiz: the same choice twice": (
        "quiz_multi",
        lambda d, r: {"round": r, "choice": [choice_key(d["quiz_multi"], "More layers")] * 2},
        "twice",
    ),
    "match: an item left out": ("match", lambda d, r: _without(_match(d, r), _first_item(d)), "no target"),
    "match: an unknown item": ("match", lambda d, r: {**_match(d, r), "item-kdeadbeef00": "x"}, "not part"),
    "match: an unknown target": ("match", lambda d, r: {**_match(d, r), _first_item(d): "k0000000000"}, "not part"),
    "match: a target used twice": (
        "match",
        lambda d, r: {**_match(d, r), _first_item(d): list(match_fields(d["match"]).values())[1]},
        "used twice",
    ),
    "match: a pair repeated": (
        "match",
        lambda d, r: {**_match(d, r), _first_item(d): [match_fields(d["match"])[_first_item(d)]] * 2},
        "more than once",
    ),
    "card: no answer written": ("card", lambda d, r: {"round": r, "text": "   "}, "Write your answer"),
    "card: an answer too long": ("card", lambda d, r: {"round": r, "text": "x" * 10_001}, "too long"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_answer_is_a_plain_400_and_stores_nothing(learner_client, drills, case):
    name, build, message = BAD[case]
    drill = drills[name]
    response = learner_client.post(drill_url(drill, "answer"), build(drills, fresh_round(learner_client, drill)))
    assert response.status_code == 400, response.content
    assert response["Content-Type"].startswith("text/plain") and message in response.content.decode()
    assert not Attempt.objects.exists() and not ReviewCard.objects.exists()


@pytest.mark.parametrize(
    "body, content_type, message",
    [
        ("{not json", "application/json", "not valid JSON"),
        ("[1, 2]", "application/json", "must be an object"),
        ('{"round": "x", "line": {"nested": 1}}', "application/json", "string or a number"),
        ('{"round": "x", "line": true}', "application/json", "string or a number"),
        (b"\xff\xfe", "application/json", "not valid JSON"),
        ('{"round": "x", "line": ' + "[" * 10_000 + "]" * 10_000 + "}", "application/json", "deeper than 10"),
        ("[" * 10_000, "application/json", "deeper than 10"),
        ('{"a": ' * 5_000 + "1" + "}" * 5_000, "application/json", "deeper than 10"),
        ('{"round": "x", "line": ' + "[" * 10 + "4" + "]" * 10 + "}", "application/json", "deeper than 10"),
        ("line=4", "text/plain", "form or as JSON"),
        ("line=" + "4" * 40_000, "application/x-www-form-urlencoded", "too large"),
        ("line=" + "4" * 1_000_000, "application/x-www-form-urlencoded", ""),
    ],
)
def test_malformed_bodies_are_refused(learner_client, drills, body, content_type, message):
    response = learner_client.post(drill_url(drills["spot"], "answer"), body, content_type=content_type)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Attempt.objects.exists()


def test_brackets_inside_strings_are_text_not_nesting(learner_client, drills):
    round_token = fresh_round(learner_client, drills["spot"])
    body = json.dumps({"round": round_token, "line": "[{" * 1_000 + '"' + "]" * 1_000})
    response = learner_client.post(drill_url(drills["spot"], "answer"), body, content_type="application/json")
    assert response.status_code == 400 and "whole number" in response.content.decode()


def test_a_json_answer_nested_as_deep_as_allowed_is_read(learner_client, drills):
    round_token = fresh_round(learner_client, drills["spot"])
    body = json.dumps({"round": round_token, "line": "@"}).replace('"@"', "[" * 9 + "4" + "]" * 9)
    response = learner_client.post(drill_url(drills["spot"], "answer"), body, content_type="application/json")
    assert response.status_code == 400 and "string or a number" in response.content.decode()  # read, then refused
    flat = json.dumps({"round": round_token, "line": ["4"]})
    response = learner_client.post(drill_url(drills["spot"], "answer"), flat, content_type="application/json")
    assert response.status_code == 200 and Attempt.objects.count() == 1


def test_unknown_drill_is_404_and_get_on_answer_is_405(learner_client, drills):
    url = drill_url(drills["spot"], "answer").replace("low-utilization", "no-such-drill")
    assert learner_client.post(url, {"line": "1"}).status_code == 404
    assert learner_client.get(drill_url(drills["spot"], "answer")).status_code == 405
    assert not Attempt.objects.exists()


@pytest.mark.parametrize(
    "fields, message",
    [
        ({}, "Rate yourself"),
        ({"rating": "5"}, "Rate yourself"),
        ({"rating": "3", "covered": "7"}, "not on this card"),
        ({"rating": "3", "covered": ["1", "1"]}, "not on this card"),
        ({"rating": "3", "covered": "first"}, "not a number"),
        ({"rating": "3", "attempt": ""}, "No unrated answer"),
        ({"rating": "3", "attempt": "99999"}, "No unrated answer"),
    ],
)
def test_bad_ratings_are_refused(learner_client, learner, drills, fields, message):
    attempt = attempt_submit(learner=learner, drill=drills["card"], answer={"text": "mine"})
    response = learner_client.post(drill_url(drills["card"], "rate"), {"attempt": attempt.pk, **fields})
    assert response.status_code == 400 and message in response.content.decode()
    attempt.refresh_from_db()
    assert attempt.rating is None and not ReviewCard.objects.exists()


def test_a_learner_cannot_rate_another_learners_answer(client, learner, drills):
    attempt = attempt_submit(learner=learner, drill=drills["card"], answer={"text": "mine"})
    client.force_login(UserFactory(username="eve"))
    response = client.post(drill_url(drills["card"], "rate"), {"attempt": attempt.pk, "rating": "4"})
    assert response.status_code == 400
    attempt.refresh_from_db()
    assert attempt.rating is None and not ReviewCard.objects.exists()


def test_csrf_guards_answers_and_htmx_sends_the_header(learner, drills):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    page = client.get(drill_url(drills["spot"]))
    round_token = fresh_round(client, drills["spot"])
    assert client.post(drill_url(drills["spot"], "answer"), {"round": round_token, "line": "4"}).status_code == 403
    assert not Attempt.objects.exists()
    token = client.cookies["csrftoken"].value
    assert 'hx-headers=\'{"X-CSRFToken":' in page.content.decode()
    response = client.post(
        drill_url(drills["spot"], "answer"),
        {"round": round_token, "line": "4"},
        HTTP_X_CSRFTOKEN=token,
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and Attempt.objects.count() == 1
