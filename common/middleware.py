"""Refuse request text the database cannot store or the app never meant to accept, before any view runs.

A NUL character (PostgreSQL text cannot hold one) or bytes that are not UTF-8 in the query string, a form
body (urlencoded or multipart, whatever charset it declares) or a JSON body answer 400, so no view ever
stores mangled or Latin-1 text. So does a JSON body nested deeper than any view reads (common/json_body.py),
before a decoder could recurse into it.
"""

from urllib.parse import unquote_to_bytes

from django.http import HttpResponseBadRequest

from common import json_body

BAD_QUERY = "The address is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
BAD_FORM = "The form is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
BAD_JSON = "The body is not valid JSON: it is not valid UTF-8 text or holds a NUL character."


def _form_parts(encoded: bytes) -> list[bytes]:
    """Each name and value of an urlencoded string, percent-decoded to raw bytes."""
    parts = []
    for pair in encoded.split(b"&"):
        parts.extend(unquote_to_bytes(piece.replace(b"+", b" ")) for piece in pair.split(b"=", 1))
    return parts


def _text_ok(raw: bytes) -> bool:
    if b"\x00" in raw:
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _multipart_ok(request) -> bool:
    # Django decodes multipart text fields in the request's declared charset, else as UTF-8 with
    # errors="replace" (bad bytes arrive as U+FFFD): refuse any other charset, then look for U+FFFD.
    if (request.encoding or "utf-8").lower().replace("_", "-") not in ("utf-8", "utf8"):
        return False
    return not any(
        "\x00" in text or "\ufffd" in text for name, values in request.POST.lists() for text in [name, *values]
    )


def _problem(request) -> str | None:
    query = request.META.get("QUERY_STRING", "").encode("latin-1", errors="replace")  # WSGI's raw bytes
    if not all(_text_ok(part) for part in _form_parts(query)):
        return BAD_QUERY
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    content_type = request.content_type
    if content_type == "application/x-www-form-urlencoded":
        return None if all(_text_ok(part) for part in _form_parts(request.body)) else BAD_FORM
    if content_type == "application/json":
        if not _text_ok(request.body) or b"\\u0000" in request.body.lower():
            return BAD_JSON
        return json_body.too_deep() if json_body.nests_deeper_than(request.body) else None
    if content_type == "multipart/form-data":
        return None if _multipart_ok(request) else BAD_FORM
    return None


class RejectBadTextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = _problem(request)
        if problem:  # plain text: the sender is a script or a tampered form, and the reason is the help
            return HttpResponseBadRequest(problem, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
