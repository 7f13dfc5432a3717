"""A submission's result JSON in the shape the pages show: its tests, counts, plots and metrics."""

from labs.models import Submission


def result_for_learner(submission: Submission) -> dict:
    """The result JSON in the shape the pages show. What a learner may see of a hidden test is the worker's
    decision (gpu_worker.graders.result.Report writes a hidden test's message only when it is meant to be
    read), so every test's message is shown as the worker sent it."""
    result = submission.result or {}
    tests = []
    for test in result.get("tests") or []:
        if not isinstance(test, dict):
            continue
        public = test.get("visibility") == "public"
        tests.append(
            {
                "name": test.get("name", ""),
                "visibility": "public" if public else "hidden",
                "passed": test.get("passed"),
                "score": test.get("score"),
                "max_score": test.get("max_score"),
                "message": str(test.get("message") or ""),
            }
        )
    plots = [
        plot for plot in result.get("plots") or [] if isinstance(plot, dict) and isinstance(plot.get("figure"), dict)
    ]
    metrics = result.get("metrics") if isinstance(result.get("metrics"), dict) else {}
    counts = {
        kind: (
            sum(1 for t in tests if t["visibility"] == kind and t["passed"]),
            sum(1 for t in tests if t["visibility"] == kind),
        )
        for kind in ("public", "hidden")
    }
    scalars, tables = metrics_for_display(metrics)
    return {
        "tests": tests,
        "counts": counts,
        "plots": plots,
        "metrics": scalars,
        "metric_tables": tables,
        "stdout": str(result.get("stdout") or ""),
        "worker": result.get("worker") if isinstance(result.get("worker"), dict) else {},
    }


def metrics_for_display(metrics: dict) -> tuple[dict, list[dict]]:
    """Scalars as name/value rows; nested groups (e.g. trace -> system -> metric) as small tables
    with one column per system and one row per metric, instead of a raw dict on the page."""
    scalars, tables = {}, []
    for name, value in metrics.items():
        if not isinstance(value, dict):
            scalars[name] = value
            continue
        groups = value if all(isinstance(v, dict) for v in value.values()) and value else {"": value}
        for group, columns in groups.items():
            if not all(isinstance(v, dict) for v in columns.values()):
                columns = {"value": columns}
            headers = list(columns)
            row_names = list(dict.fromkeys(key for column in columns.values() for key in column))
            rows = [[row] + [columns[h].get(row, "") for h in headers] for row in row_names]
            tables.append({"title": f"{name} · {group}" if group else name, "headers": headers, "rows": rows})
    return scalars, tables
