"""Plotly figure dicts and a self-contained HTML page that loads plotly.min.js from a local path (no CDN)."""
import html
import json
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def line_figure(title: str, y_title: str, series: dict[str, tuple[list, list]]) -> dict:
    """series: name -> (x, y)."""
    return {"data": [{"type": "scatter", "mode": "lines", "name": name, "x": x, "y": y}
                     for name, (x, y) in series.items()],
            "layout": {"title": {"text": title}, "xaxis": {"title": {"text": "step"}},
                       "yaxis": {"title": {"text": y_title}}}}


def write_html(path: str | Path, title: str, plots: list[dict], summary_lines: list[str], plotly_js: str) -> None:
    path = Path(path).resolve()
    js = Path(plotly_js)
    js = js if js.is_absolute() else REPO_ROOT / js
    src = os.path.relpath(js, path.parent)
    divs = "\n".join(f'<div id="plot{i}" style="height:420px"></div>' for i in range(len(plots)))
    calls = "\n".join(f"Plotly.newPlot('plot{i}', {json.dumps(p['figure']['data'])}, "
                      f"{json.dumps({**p['figure']['layout'], 'title': {'text': p['title']}})});"
                      for i, p in enumerate(plots))
    path.write_text(f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<script src="{html.escape(src)}"></script></head>
<body><h1>{html.escape(title)}</h1>
<pre>{html.escape(chr(10).join(summary_lines))}</pre>
{divs}
<script>
if (typeof Plotly === "undefined") {{
  document.body.insertAdjacentHTML("beforeend", "<p>plotly.min.js not found at {html.escape(src)}; the figures are in the JSON.</p>");
}} else {{
{calls}
}}
</script></body></html>
""")
