"""Bad input on every URL pattern: ids past the 64-bit range are 404; NUL, non-UTF-8 text and JSON nested 10,000
deep are 400, never a 500."""

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter

from cohorts.models import ScoreOverride
from common.converters import MAX_ID, DatabaseIdConverter
from config.tests import world as site
from drills.models import Attempt, Drill
from drills.tests.helpers import drill_url, round_from
from labs.models import Submission

pytestmark = pytest.mark.django_db
PATTERNS = site.named_patterns()
ID_PATTERNS = sorted(name for name, keys in PATTERNS.items() if any(key == "pk" or key.endswith("_id") for key in keys))
TOO_BIG = (MAX_ID + 1, 10**30)


def converters(resolver: URLResolver | None = None):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        yield from getattr(entry.pattern, "converters", {}).items()
        if isinstance(entry, URLResolver):
            yield from converters(entry)


def test_no_pattern_takes_an_unbounded_int():
    found = list(converters())
    assert not [key for key, converter in found if isinstance(converter, IntConverter)]
    assert sum(isinstance(converter, DatabaseIdConverter) for _key, converter in found) >= 15


@pytest.fixture
def world():
    return site.build()


def signed_in(world, role: str) -> Client:
    client = Client()
    client.force_login(world.users[role])
    return client


def with_ids(world, name: str, value: int) -> str:
    kwargs = world.kwargs(name, PATTERNS[name])
    kwargs = {key: (value if key == "pk" or key.endswith("_id") else arg) for key, arg in kwargs.items()}
    return reverse(name, kwargs=kwargs)


@pytest.mark.parametrize("name", ID_PATTERNS)
def test_ids_past_the_database_range_are_404(world, name):
    owner = signed_in(world, "own_instructor")
    for value in TOO_BIG:
        url = with_ids(world, name, 1).replace("/1/", f"/{value}/")
        for client in (owner, signed_in(world, "learner_a"), Client()):
            assert client.get(url).status_code == 404, url
            # 405 where the address falls through to a GET-only page (drills' /<module>/<kind>/<slug>/)
            assert client.post(url).status_code in (404, 405), url


@pytest.mark.parametrize("name", ID_PATTERNS)
def test_the_largest_id_is_an_ordinary_miss(world, name):
    url = with_ids(world, name, MAX_ID)
    for role in ("own_instructor", "learner_a"):
        client = signed_in(world, role)
        assert client.get(url).status_code in (403, 404, 405), url
        assert client.post(url).status_code in (302, 403, 404, 405), url  # actions redirect with a message


def test_an_override_for_a_huge_learner_id_is_a_form_error(world):
    client = signed_in(world, "own_instructor")
    url = reverse("instructor:overrides", args=[world.defaults["cohort_id"]])
    for learner in (str(MAX_ID + 1), "9" * 40, str(MAX_ID)):
        response = client.post(url, {"learner": learner, "target": "lab:lab-1", "score": "1", "reason": "r"})
        assert response.status_code == 400, learner
    assert ScoreOverride.objects.count() == 1  # the one the world holds


@pytest.mark.parametrize("inactive", ["99999999999999", "9" * 5000, "-5", "abc", "36500"])
def test_the_matrix_inactive_filter_takes_any_number(world, inactive):
    client = signed_in(world, "own_instructor")
    response = client.get(reverse("instructor:matrix", args=[world.defaults["cohort_id"]]), {"inactive": inactive})
    assert response.status_code == 200


BAD_BODIES = {
    "nul in a form": ("application/x-www-form-urlencoded", b"text=a%00b&answer=x"),
    "nul in a field name": ("application/x-www-form-urlencoded", b"te%00xt=a"),
    "latin-1 form": ("application/x-www-form-urlencoded; charset=latin-1", b"source=caf%E9&mode=run"),
    "raw latin-1 form": ("application/x-www-form-urlencoded", b"source=caf\xe9&mode=run"),
    "nul in json": ("application/json", b'{"text": "a\\u0000b"}'),
    "latin-1 json": ("application/json", b'{"text": "caf\xe9"}'),
    "nul in multipart": (
        "multipart/form-data; boundary=B",
        b'--B\r\nContent-Disposition: form-data; name="text"\r\n\r\na\x00b\r\n--B--\r\n',
    ),
    "latin-1 multipart charset": (
        "multipart/form-data; boundary=B; charset=latin-1",
        b'--B\r\nContent-Disposition: form-data; name="source"\r\n\r\ncaf\xe9\r\n--B--\r\n',
    ),
    "latin-1 multipart": (
        "multipart/form-data; boundary=B",
        b'--B\r\nContent-Disposition: form-data; name="text"\r\n\r\ncaf\xe9\r\n--B--\r\n',
    ),
}


DEEP_JSON = {
    "10,000 arrays": b"[" * 10_000 + b"]" * 10_000,
    "10,000 unclosed arrays": b"[" * 10_000,
    "5,000 objects": b'{"a": ' * 5_000 + b"1" + b"}" * 5_000,
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_nul_non_utf8_and_deep_json_are_400_on_every_pattern(world, name):
    url = reverse(name, kwargs=world.kwargs(name, PATTERNS[name]))
    for client in (signed_in(world, "learner_a"), Client()):
        assert client.get(url, {"q": "a\x00b"}).status_code == 400, url
        assert client.get(f"{url}?q=caf%E9").status_code == 400, url
        for label, (content_type, payload) in BAD_BODIES.items():
            response = client.generic("POST", url, payload, content_type=content_type)  # bytes as they are
            assert response.status_code == 400, (label, url)
            assert "not valid UTF-8 text or holds a NUL character" in response.content.decode(), (label, url)
        for label, payload in DEEP_JSON.items():
            response = client.generic("POST", url, payload, content_type="application/json")
            assert response.status_code == 400, (label, url)
            assert "nests arrays or objects deeper than 10 levels" in response.content.decode(), (label, url)


@pytest.mark.parametrize(
    "content_type, payload",
    [
        ("application/x-www-form-urlencoded; charset=latin-1", b"mode=run&source=x+%3D+%27caf%E9%27"),
        (
            "multipart/form-data; boundary=B; charset=latin-1",
            b'--B\r\nContent-Disposition: form-data; name="mode"\r\n\r\nrun\r\n'
            b'--B\r\nContent-Disposition: form-data; name="source"\r\n\r\nx = "caf\xe9"\r\n--B--\r\n',
        ),
    ],
)
def test_a_latin1_lab_source_is_refused_and_nothing_is_stored(world, content_type, payload):
    client = signed_in(world, "learner_b")
    before = Submission.objects.count()
    response = client.generic("POST", reverse("labs:detail", args=["lab-1"]), payload, content_type=content_type)
    assert response.status_code == 400 and Submission.objects.count() == before


def test_text_in_utf8_still_goes_through(world):
    client = signed_in(world, "learner_b")
    response = client.post(reverse("labs:detail", args=["lab-1"]), {"mode": "run", "source": "x = 'café 漢字'\n"})
    assert response.status_code == 302
    assert Submission.objects.filter(source="x = 'café 漢字'\n").exists()
    assert client.get(reverse("labs:index"), {"q": "café"}).status_code == 200


@pytest.mark.parametrize(
    "content_type, template",
    [
        ("application/x-www-form-urlencoded", "round={round}&text=a%00b"),
        ("application/json", '{{"round": "{round}", "text": "a\\u0000b"}}'),
    ],
)
def test_a_nul_in_a_card_answer_stores_nothing(world, content_type, template):
    """The case that raised on PostgreSQL: a card answer holding a NUL, with a valid round token."""
    client = signed_in(world, "learner_a")
    card = Drill.objects.get(kind="card", slug=world.kwargs_by_name["drills:drill"]["slug"])
    round_token = round_from(client.get(drill_url(card)).content.decode())
    response = client.post(
        drill_url(card, "answer"), template.format(round=round_token).encode(), content_type=content_type
    )
    assert response.status_code == 400 and not Attempt.objects.exists()
    fine = client.post(drill_url(card, "answer"), {"round": round_token, "text": "blocks and tables"})
    assert fine.status_code == 200 and Attempt.objects.count() == 1  # the same post without the NUL is stored


@pytest.mark.parametrize(
    "path",
    [
        "/labs/%00/",
        "/labs/caf%E9/",
        "/course/%00/s1/",
        "/drills/m1/card/%FF%FE/",
        "/instructor/c/1/labs/%00/",
        "/labs/submissions/1%00/",
        "/accounts/reset/%00/x/",
    ],
)
def test_nul_or_latin1_in_the_path_is_a_miss(world, path):
    for client in (signed_in(world, "own_instructor"), Client()):
        response = client.get(path)
        if path.startswith("/accounts/reset/"):  # the reset page says the link is dead
            assert response.status_code == 200 and "This link no longer works" in response.content.decode()
        else:
            assert response.status_code in (302, 404), path
