"""A signed token rendered with each exercise: it names the round (retries share it) and its start time."""

import secrets
import time
from dataclasses import dataclass

from django.core import signing

from .payload import AnswerError

SALT = "drills.round"
MAX_AGE_S = 24 * 3600
MAX_DURATION_MS = 3600 * 1000


@dataclass(frozen=True)
class Round:
    round_id: str
    started_ms: int

    def duration_ms(self) -> int:
        """Time since the page was rendered, clamped to [0, one hour]."""
        return max(0, min(MAX_DURATION_MS, int(time.time() * 1000) - self.started_ms))


def new_round() -> str:
    return signing.dumps({"id": secrets.token_hex(8), "t": int(time.time() * 1000)}, salt=SALT)


def read_round(token: str | None) -> Round:
    if not token:
        raise AnswerError("The form is missing its round token; reload the page.")
    try:
        value = signing.loads(token, salt=SALT, max_age=MAX_AGE_S)
        return Round(round_id=str(value["id"]), started_ms=int(value["t"]))
    except signing.SignatureExpired:
        raise AnswerError("This page is too old; reload it and answer again.") from None
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise AnswerError("The round token is not valid; reload the page.") from None
