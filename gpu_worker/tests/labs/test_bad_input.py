"""Bad submissions: empty, too large, syntax errors, missing functions, non-UTF-8 bytes."""

import pytest


def test_empty_source_is_rejected(grade):
    result = grade("kv-sizing", "   \n")
    assert result["verdict"] == "rejected" and "empty" in result["message"] and result["score"] == 0.0


def test_source_over_64_kb_is_rejected(grade, fixture_source):
    source = fixture_source("kv-sizing", "reference") + "#" * 70_000
    result = grade("kv-sizing", source)
    assert result["verdict"] == "rejected" and "64 KB" in result["message"]


def test_syntax_error_is_compile_error_with_the_line(grade):
    result = grade("kv-sizing", "def kv_bytes_per_token(config, dtype_bytes):\n    return (1 +\n\nx = 3\n")
    assert result["verdict"] == "compile_error"
    assert "line 2" in result["message"]


@pytest.mark.sandbox
def test_missing_function_is_rejected_naming_it(grade, fixture_source):
    source = fixture_source("kv-sizing", "reference").replace("def max_concurrent_seqs", "def max_seqs")
    result = grade("kv-sizing", source)
    assert result["verdict"] == "rejected" and "max_concurrent_seqs()" in result["message"]


def test_non_utf8_bytes_are_rejected(grade):
    result = grade("kv-sizing", b"def kv_bytes_per_token(c, d):\n    return '\xff\xfe'\n")
    assert result["verdict"] == "rejected" and "UTF-8" in result["message"]


def test_unknown_lab_is_internal_error(grade):
    result = grade("no-such-lab", "x = 1\n")
    assert result["verdict"] == "internal_error" and "no-such-lab" in result["message"]
