"""Plotly figure dicts and a self-contained HTML page that loads plotly.min.js from a local path (no CDN)."""

import html
import json
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def line_figure(title: str, y_title: str, series: dict[str, tuple[list, list]]) -> dict:
    """series: name -> (x, y)."""
    return {
        "data": [{"type": "scatter", "mode": "lines", "name": name, "x": x, "y": y} for name, (x, y) in series.items()],
        "layout": {
            "title": {"text": title},
            "xaxis": {"title": {"text": "step"}},
            "yaxis": {"title": {"text": y_title}},
        },
    }


def write_html(
    path: str | Path, title: str, plots: list[dict], notes: list[str], plotly_js: str | Path, table: str = ""
) -> None:
    """A benchmark's page at `path`: the notes, one plot per {"title", "figure"}, then `table` (if any).

    plotly.js loads from `plotly_js` (relative to the repo root unless absolute), never a CDN."""
    path = Path(path).resolve()
    js = Path(plotly_js)
    src = os.path.relpath(js if js.is_absolute() else REPO_ROOT / js, path.parent)
    divs = "\n".join(
        f'<h2>{html.escape(plot["title"])}</h2><div id="figure-{i}" style="height:420px"></div>'
        for i, plot in enumerate(plots)
    )
    figures_json = json.dumps([plot["figure"] for plot in plots]).replace("</", "<\\/")
    measurements = f"<h2>Measurements</h2><pre>{html.escape(table)}</pre>" if table else ""
    path.write_text(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<script src="{html.escape(src)}"></script></head>
<body><h1>{html.escape(title)}</h1>
<pre>{html.escape(chr(10).join(notes))}</pre>
{divs}
{measurements}
<script>
const figures = {figures_json};
if (typeof Plotly === "undefined") {{
  document.body.insertAdjacentHTML("beforeend", "<p>plotly.min.js not found at {html.escape(src)}; the figures are in the JSON.</p>");
}} else {{
  figures.forEach((figure, i) => Plotly.newPlot("figure-" + i, figure.data, figure.layout));
}}
</script></body></html>
""")
