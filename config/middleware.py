"""Refuse request text the database cannot store or the app never meant to accept, before any view runs.

A NUL character (PostgreSQL text cannot hold one) or bytes that are not UTF-8 in the query string, a form
body (whatever charset it declares) or a JSON body answer 400, so no view stores mangled or Latin-1 text.
"""
from urllib.parse import unquote_to_bytes

from django.http import HttpResponseBadRequest

JSON_NUL_ESCAPES = (b"\\u0000",)


def _form_bytes(encoded: bytes) -> list[bytes]:
    """Each name and value of an urlencoded string, percent-decoded to raw bytes."""
    parts = []
    for pair in encoded.replace(b";", b"&").split(b"&"):
        for piece in pair.split(b"=", 1):
            parts.append(unquote_to_bytes(piece.replace(b"+", b" ")))
    return parts


def _text_ok(raw: bytes) -> bool:
    if b"\x00" in raw:
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _problem(request) -> str | None:
    query = request.META.get("QUERY_STRING", "").encode("latin-1", errors="replace")
    if not all(_text_ok(part) for part in _form_bytes(query)):
        return "The address is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    content_type = request.content_type
    if content_type == "application/x-www-form-urlencoded":
        if not all(_text_ok(part) for part in _form_bytes(request.body)):
            return "The form is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
    elif content_type == "application/json":
        if not _text_ok(request.body) or any(escape in request.body.lower() for escape in JSON_NUL_ESCAPES):
            return "The JSON body is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
    elif content_type == "multipart/form-data":
        # Django decodes multipart text fields in the declared charset, else UTF-8 with errors="replace"
        # (bad bytes arrive as U+FFFD): refuse any other charset, then look for U+FFFD.
        if (request.encoding or "utf-8").lower().replace("_", "-") not in ("utf-8", "utf8"):
            return "The form is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
        for name, values in request.POST.lists():
            if any("\x00" in text or "\ufffd" in text for text in [name, *values]):
                return "The form is not valid UTF-8 text or holds a NUL character; send UTF-8 text without NULs."
    return None


class RejectBadTextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = _problem(request)
        if problem:  # plain text: the sender is a script or a tampered form, and the reason is the help
            return HttpResponseBadRequest(problem, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
