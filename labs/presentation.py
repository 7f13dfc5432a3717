"""A graded result in words a learner reads: verdict names, measurements with units and direction,
nccl-tests-style bandwidth rows, the test a stopped run was on, and failures split into input/expected/got."""

import json
import re

from gpu_worker.contract import STOPPING_VERDICTS, Verdict
from gpu_worker.contract.result import DETAIL_FIELDS, STOPPED_AT

VERDICTS = {  # every contract verdict, in words (a test holds the keys to contract.Verdict)
    Verdict.ACCEPTED: ("Accepted", "All tests passed."),
    Verdict.WRONG_ANSWER: ("Wrong answer", "Your code ran, but at least one answer differs from the expected one."),
    Verdict.TIME_LIMIT: ("Time limit exceeded", "Your code ran past the time limit, so the run was stopped."),
    Verdict.MEMORY_LIMIT: ("Memory limit exceeded", "Your code used more memory than the lab allows."),
    Verdict.RUNTIME_ERROR: ("Runtime error", "Your code raised an exception or crashed while a test ran."),
    Verdict.COMPILE_ERROR: ("Does not compile", "Python could not load your code (a syntax or import error)."),
    Verdict.REJECTED: ("Rejected", "Your code breaks a rule of the lab (a missing function or a forbidden call)."),
    Verdict.INTERNAL_ERROR: ("Internal error", "The grader failed; this is not your fault. Try again later."),
}

# name: (label, unit, which way is better). Anything not named here is labelled from its suffix.
METRICS = {
    "speed_ratio": ("speed vs reference", "×", "higher is better"),
    "sandbox_start_s": ("sandbox start", "s", ""),
    "sandbox_cpu_s": ("CPU your code used (what the CPU limit judges)", "s", ""),
    "sandbox_own_s": ("your code's own time (what the time limit judges)", "s", ""),
    "grade_s": ("grading took", "s", ""),
    "median_ms": ("your median latency", "ms", "lower is better"),
    "reference_ms": ("reference median latency", "ms", ""),
    "timing_context": ("context length timed", "tokens", ""),
    "timing_batch": ("batch timed", "sequences", ""),
    "timing_rounds": ("timed rounds (the figure is their median)", "", ""),
    "timing_calls_per_round": ("calls per round, each on fresh inputs", "", ""),
    "timing_spread_pct": ("spread of the timed rounds", "%", "lower is steadier"),
    "timing_retimed": ("timed again because rounds disagreed", "", ""),
    "timing_noisy": ("rounds still disagreed after timing again", "", ""),
    "timing_note": ("timing", "", ""),
    "above_peak": ("faster than the device can read (not ranked)", "", ""),
    "throughput": ("throughput", "tokens/step", "higher is better"),
    "steps": ("steps", "", "lower is better"),
    "ttft_p50": ("time to first token, median", "steps", "lower is better"),
    "ttft_p99": ("time to first token, p99", "steps", "lower is better"),
    "itl_p50": ("inter-token latency, median", "steps", "lower is better"),
    "itl_p99": ("inter-token latency, p99", "steps", "lower is better"),
    "preemptions": ("preemptions", "", "lower is better"),
    "peak_blocks_used": ("peak KV blocks used", "blocks", ""),
    "output_tokens": ("output tokens", "", ""),
    "bytes_sent": ("bytes sent", "B", "lower is better"),
}
SUFFIXES = (
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_s", "s"),
    ("_bytes", "B"),
    ("_gbps", "GB/s"),
    ("_pct", "%"),
    ("_ratio", "×"),
)
PLURALS = {"steps": "step", "blocks": "block", "sequences": "sequence", "tokens": "token"}
FOLD_AFTER = 2  # nested tables beyond this many start folded


def verdict_name(verdict: str) -> str:
    return VERDICTS.get(verdict, (verdict.replace("_", " ").capitalize() or "No verdict", ""))[0]


def verdict_meaning(verdict: str) -> str:
    return VERDICTS.get(verdict, ("", ""))[1]


def number(value, unit: str = "") -> str:
    """A figure as people write it: 0.54×, 1.23 s, 12,345 B."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "" if value is None else str(value)
    if isinstance(value, float):
        if unit == "×":
            text = f"{value:.2f}"
        elif abs(value) >= 100:
            text = f"{value:,.0f}"
        elif abs(value) >= 10:
            text = f"{value:.1f}"
        else:
            text = f"{value:.3g}" if abs(value) >= 0.001 or value == 0 else f"{value:.2e}"
    else:
        text = f"{value:,}"
    if not unit:
        return text
    if unit in ("×", "%"):
        return f"{text}{unit}"
    if value == 1 and unit in PLURALS:
        unit = PLURALS[unit]
    return f"{text} {unit}"


def label_of(name: str) -> tuple[str, str, str]:
    """(label, unit, direction) for a metric name."""
    if name in METRICS:
        return METRICS[name]
    for suffix, unit in SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)].replace("_", " "), unit, ""
    return name.replace("_", " "), "", ""


def metric_row(name: str, value) -> dict:
    label, unit, direction = label_of(str(name))
    return {"label": label, "value": number(value, unit), "direction": direction}


def measurements(metrics) -> dict:
    """{"rows": scalar rows, "bandwidth": nccl-style table or None, "tables": [{title, headers, rows, open}]}."""
    rows, tables, bandwidth = [], [], None
    for name, value in (metrics if isinstance(metrics, dict) else {}).items():
        if name == "bandwidth" and _is_bandwidth(value):
            bandwidth = bandwidth_table(value)
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            headers = list(dict.fromkeys(key for item in value for key in item))
            tables.append(
                {
                    "title": label_of(name)[0],
                    "headers": [label_of(h)[0] for h in headers],
                    "rows": [["", *[number(item.get(h), label_of(h)[1]) for h in headers]] for item in value],
                }
            )
        elif isinstance(value, dict):
            tables += _nested_tables(name, value)
        else:
            rows.append(metric_row(name, value if not isinstance(value, list) else ", ".join(map(str, value))))
    summarised = any(table.get("summary") for table in tables)
    for index, table in enumerate(tables):
        # With a summary row per group, every group's own table starts folded; else the first few open.
        table["open"] = table.get("summary", False) if summarised else index < FOLD_AFTER
    return {"rows": rows, "bandwidth": bandwidth, "tables": tables}


def _nested_tables(name: str, value: dict) -> list[dict]:
    """A flat dict: one name/value table. A dict of flat dicts (exchange -> field): one table, a row each.
    A dict of dicts of dicts (trace -> system -> metric): a table per group, one column per system."""
    if not value:
        return []
    if not any(isinstance(v, dict) for v in value.values()):
        return [
            {
                "title": label_of(name)[0],
                "headers": ["value"],
                "rows": [[metric_row(k, v)["label"], number(v, label_of(k)[1])] for k, v in value.items()],
            }
        ]
    if all(isinstance(v, dict) and not any(isinstance(x, dict) for x in v.values()) for v in value.values()):
        fields = list(dict.fromkeys(key for row in value.values() for key in row))
        return [
            {
                "title": label_of(name)[0],
                "headers": [label_of(f)[0] for f in fields],
                "rows": [
                    [group, *[number(row.get(f), label_of(f)[1]) for f in fields]] for group, row in value.items()
                ],
            }
        ]
    tables = []
    for group, columns in value.items():
        if not isinstance(columns, dict):
            continue
        columns = {k: v for k, v in columns.items() if isinstance(v, dict)} or {"value": columns}
        keys = list(dict.fromkeys(key for column in columns.values() for key in column))
        rows = []
        for key in keys:
            label, unit, direction = label_of(key)
            rows.append(
                [
                    f"{label}{f' ({direction})' if direction else ''}",
                    *[number(column.get(key), unit) for column in columns.values()],
                ]
            )
        tables.append(
            {"title": f"{label_of(name)[0]} · {group}", "headers": list(columns), "rows": rows, "columns": columns}
        )
    summary = _summary(name, value, tables) if len(tables) > FOLD_AFTER else None
    for table in tables:
        table.pop("columns")
    return [summary, *tables] if summary else tables


def _summary(name: str, value: dict, tables: list[dict]) -> dict | None:
    """Many near-identical groups (one per trace): one row each with the figure that matters most,
    the first metric whose better direction is known (throughput for the scheduler)."""
    keys = list(dict.fromkeys(key for table in tables for column in table["columns"].values() for key in column))
    key = next((k for k in keys if label_of(k)[2] == "higher is better"), None) or next(
        (k for k in keys if label_of(k)[2]), None
    )
    if key is None:
        return None
    label, unit, direction = label_of(key)
    headers = list(dict.fromkeys(h for table in tables for h in table["headers"]))
    rows = [
        [group, *[number(columns.get(h, {}).get(key), unit) for h in headers]]
        for group, columns in value.items()
        if isinstance(columns, dict)
    ]
    return {
        "title": f"{label_of(name)[0]}: {label} ({direction}), one row each",
        "headers": headers,
        "rows": rows,
        "summary": True,
    }


def _is_bandwidth(value) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(row, dict) and {"size", "busbw"} <= set(row) for row in value)
    )


def human_bytes(size) -> str:
    if not isinstance(size, (int, float)) or isinstance(size, bool):
        return str(size)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{int(size)} B"


def bandwidth_table(rows: list[dict]) -> dict:
    """The grader's bandwidth rows as nccl-tests prints them: size, count, type, time, algbw, busbw."""
    has_library = any("library_busbw" in row for row in rows)
    headers = ["size", "count", "type", "time (µs)", "algbw (GB/s)", "busbw (GB/s)"]
    if has_library:
        headers += ["library time (µs)", "library busbw (GB/s)"]
    body = []
    for row in rows:
        cells = [
            human_bytes(row.get("size")),
            number(row.get("count")),
            str(row.get("type", "")),
            _fixed(row.get("time_us"), 1),
            _fixed(row.get("algbw"), 2),
            _fixed(row.get("busbw"), 2),
        ]
        if has_library:
            cells += [_fixed(row.get("library_time_us"), 1), _fixed(row.get("library_busbw"), 2)]
        body.append(cells)
    ranks = next((row.get("ranks") for row in rows if row.get("ranks")), None)
    return {"headers": headers, "rows": body, "ranks": ranks}


def _fixed(value, places: int) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return ""
    if places == 2 and abs(value) < 1:
        places = 4  # CPU all-reduce bandwidths are small; two places would print 0.01 for most rows
    return f"{value:,.{places}f}"


def stopped_test(*, verdict: str, message: str, tests: list[dict]) -> str:
    """The test a run was on when it hit the time limit (or crashed), when the result says which."""
    if verdict not in STOPPING_VERDICTS:
        return ""
    for test in tests:
        if test.get(STOPPED_AT):
            return str(test[STOPPED_AT])
    return _legacy_stopped_test(message, tests)


def failure_detail(test: dict) -> dict | None:
    """{"input", "expected", "got"} of a failed public test, from the grader's fields."""
    if test.get("passed") or test.get("visibility") != "public":
        return None
    if any(key in test for key in DETAIL_FIELDS):
        return {key: _text(test.get(key)) for key in DETAIL_FIELDS}
    return _legacy_detail(str(test.get("message") or ""))


def _text(value) -> str:
    return "" if value is None else value if isinstance(value, str) else repr(value)


# Results stored before the worker sent structured fields (Issue 27) have only the grader's words; these
# read those words as they were then. Nothing new needs them: drop them once no such result is kept.
_LEGACY_NOT_RUN = re.compile(r"not run: the run stopped at test (?P<name>.+)$")
_LEGACY_STOP_MESSAGE = re.compile(r"^test (?P<name>.+?)(?: failed)?: ")
_LEGACY_DETAIL = (
    re.compile(
        r"^(?P<input>.+?) returned (?P<got>.+?)(?: \((?P<type>\w+)\))?, (?:expected|the contract asks for) "
        r"(?P<expected>.+)$",
        re.S,
    ),
    re.compile(r"^(?P<input>rank \d+: element \d+) is (?P<got>\S+), the sum over ranks is (?P<expected>\S+)$"),
)


def _legacy_stopped_test(message: str, tests: list[dict]) -> str:
    for test in tests:
        found = _LEGACY_NOT_RUN.match(str(test.get("message") or ""))
        if found:
            return found.group("name")
    found = _LEGACY_STOP_MESSAGE.match(message or "")
    if found and any(test.get("name") == found.group("name") for test in tests):
        return found.group("name")
    return ""


def _legacy_detail(message: str) -> dict | None:
    for pattern in _LEGACY_DETAIL:
        found = pattern.match(message)
        if found:
            return {key: found.group(key) for key in DETAIL_FIELDS}
    return None


def custom_view(custom, sent) -> dict | None:
    """A run on the learner's own input: the input as the worker ran it (else as it was sent) and the rows of
    outputs side by side; None for a run on the public cases."""
    custom = custom if isinstance(custom, dict) else {}
    value = custom.get("input", sent)
    if value is None:
        return None
    rows = [
        {
            "label": str(row.get("label", "")),
            "yours": str(row.get("yours", "")),
            "reference": str(row.get("reference", "")),
            "same": bool(row.get("same")),
        }
        for row in custom.get("rows") or []
        if isinstance(row, dict)
    ]
    return {"input": json.dumps(value, indent=2), "rows": rows}
