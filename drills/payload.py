"""Read a posted answer as form fields or a flat JSON object, refusing what is malformed or huge."""

from django.http import QueryDict

from common import json_body

MAX_BODY_BYTES = 32 * 1024


class AnswerError(Exception):
    """A malformed or tampered answer; the message is shown to the client with a 400."""


class Payload:
    """Field access shared by form posts and JSON posts: `get` for one value, `getlist` for many."""

    def __init__(self, fields: dict[str, list[str]]):
        self._fields = fields

    def get(self, name: str) -> str | None:
        values = self._fields.get(name, [])
        if len(values) > 1:
            raise AnswerError(f"The field {name!r} was sent more than once.")
        return values[0] if values else None

    def getlist(self, name: str) -> list[str]:
        return list(self._fields.get(name, []))

    def names(self) -> list[str]:
        return list(self._fields)


def _scalar(name: str, value) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise AnswerError(f"The field {name!r} must be a string or a number.")
    return str(value)


def read_payload(request) -> Payload:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise AnswerError("The Content-Length header is not a number.") from None
    if length > MAX_BODY_BYTES:
        raise AnswerError(f"The request is too large (limit {MAX_BODY_BYTES // 1024} KiB).")
    if request.content_type == "application/json":
        try:
            data = json_body.loads(request.body)
        except json_body.JSONBodyError as error:
            raise AnswerError(str(error)) from None
        if not isinstance(data, dict):
            raise AnswerError("The JSON body must be an object.")
        fields = {}
        for name, value in data.items():
            values = value if isinstance(value, list) else [value]
            fields[name] = [_scalar(name, item) for item in values]
        return Payload(fields)
    if request.content_type not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        raise AnswerError("Send the answer as a form or as JSON.")
    post: QueryDict = request.POST
    return Payload({name: post.getlist(name) for name in post})
