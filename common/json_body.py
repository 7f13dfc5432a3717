"""JSON from a request body, read only when it nests no deeper than the site ever needs.

Python's json decoder recurses once per array or object, so a body of ten thousand '[' ends in a
RecursionError. The depth is measured first, without recursion and in C-speed passes.
"""

import json
import re

MAX_DEPTH = 10  # the deepest body any view reads is an object of lists: 2
NOT_JSON = "The body is not valid JSON."

# A string from its quote to its closing quote, or to the end when it never closes; a backslash takes the
# character after it (or the end). Every start matches without backtracking, so the scan stays linear.
_STRING = re.compile(rb'"(?:[^"\\]|\\(?:.|$))*(?:"|$)', re.DOTALL)
_NOT_BRACKET = bytes(range(256)).translate(None, b"[]{}")
_AS_SQUARE = bytes.maketrans(b"{}", b"[]")


class JSONBodyError(ValueError):
    """A body that is not JSON or nests too deep; the message is meant for the client."""


def too_deep(depth: int = MAX_DEPTH) -> str:
    return f"The JSON body nests arrays or objects deeper than {depth} levels; send at most {depth}."


def nests_deeper_than(raw: bytes, depth: int = MAX_DEPTH) -> bool:
    """Whether the brackets outside strings nest deeper than `depth` (unclosed ones count as open)."""
    brackets = _STRING.sub(b"", raw).translate(_AS_SQUARE, _NOT_BRACKET)
    for _ in range(depth):  # each pass removes the innermost pair of every nest
        shorter = brackets.replace(b"[]", b"")
        if shorter == brackets:
            break
        brackets = shorter
    # Left: pairs nested deeper than `depth`, or unmatched brackets; the decoder recurses into each open one.
    return b"[]" in brackets or brackets.count(b"[") > depth


def loads(raw: bytes, *, depth: int = MAX_DEPTH):
    """The decoded body; JSONBodyError when it is not UTF-8 JSON or nests deeper than `depth`."""
    if nests_deeper_than(raw, depth):
        raise JSONBodyError(too_deep(depth))
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise JSONBodyError(NOT_JSON) from None
