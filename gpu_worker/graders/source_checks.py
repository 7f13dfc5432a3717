"""Checks a submitted file before anything runs: present, small enough, UTF-8, and valid Python."""

import ast

from gpu_worker.contract import MAX_SOURCE_BYTES, Verdict, check_verdict


class SourceProblem(Exception):
    def __init__(self, verdict: str, message: str):
        super().__init__(message)
        self.verdict, self.message = check_verdict(verdict), message


def check_python_source(source: str | bytes) -> str:
    """The source as text: UTF-8, not empty, within the size cap and valid Python.

    Otherwise SourceProblem(rejected | compile_error, message)."""
    if isinstance(source, (bytes, bytearray)):
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError as error:
            raise SourceProblem(
                Verdict.REJECTED,
                f"the file is not valid UTF-8 text (byte 0x{source[error.start]:02x} at offset {error.start})",
            ) from None
    if not isinstance(source, str):
        raise SourceProblem(Verdict.REJECTED, f"the source must be text, got {type(source).__name__}")
    try:
        size = len(source.encode("utf-8"))
    except UnicodeEncodeError:
        raise SourceProblem(Verdict.REJECTED, "the file is not valid UTF-8 text (lone surrogate)") from None
    if not source.strip():
        raise SourceProblem(Verdict.REJECTED, "the file is empty")
    if size > MAX_SOURCE_BYTES:
        raise SourceProblem(
            Verdict.REJECTED,
            f"the file is {size} bytes; the limit is {MAX_SOURCE_BYTES} bytes ({MAX_SOURCE_BYTES // 1024} KB)",
        )
    try:
        ast.parse(source, filename="submission.py")
    except SyntaxError as error:
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        text = (error.text or "").rstrip()
        raise SourceProblem(
            Verdict.COMPILE_ERROR, f"{type(error).__name__} at {where}: {error.msg}" + (f"\n    {text}" if text else "")
        ) from None
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes, absurd nesting
        raise SourceProblem(Verdict.COMPILE_ERROR, f"the file cannot be compiled: {error}") from None
    return source
