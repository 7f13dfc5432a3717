"""`make gpu-check`'s parts that are not steps: which Python to use, PASS/FAIL/SKIP bookkeeping, running a
command, the HTML report.

Standard library only, like scripts/gpu_check.py.
"""

import glob
import html
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_PY = str(ROOT / ".venv" / "bin" / "python")
PROBE = (
    "import json, sys; from gpu_worker import versions; v = versions.found(); v['python'] = sys.version.split()[0]\n"
    "try:\n import torch; v['cuda'] = torch.cuda.is_available(); v['cuda_build'] = torch.version.cuda\n"
    "except Exception as e: v['cuda'] = False; v['torch_error'] = repr(e)\n"
    "for m in ('numpy', 'yaml', 'pytest', 'hypothesis'):\n"
    " try: __import__(m); v['has_' + m] = True\n"
    " except Exception: v['has_' + m] = False\n"
    "v['problems'] = versions.problems(); print(json.dumps(v))"
)


def probe(python: str, timeout: float = 90) -> dict | None:
    """What `python` has (torch, CUDA, numpy, PyYAML, pytest), or None when it cannot run the probe."""
    try:
        out = subprocess.run([python, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        return json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def complete(found: dict | None) -> bool:
    """Whether a probed Python has what grading needs: torch, numpy and PyYAML."""
    return bool(found and found["torch"] and found["has_numpy"] and found["has_yaml"])


def missing(found: dict | None) -> str:
    """What of torch, numpy and PyYAML a probed Python lacks, in words ("torch, numpy and PyYAML" if unknown)."""
    lacking = [
        name
        for name, key in (("torch", "torch"), ("numpy", "has_numpy"), ("PyYAML", "has_yaml"))
        if not (found and found[key])
    ]
    return ", ".join(lacking[:-1]) + (" and " if len(lacking) > 1 else "") + lacking[-1] if lacking else ""


def find_python(given: str | None) -> tuple[str, str, dict | None]:
    """The Python to check with, how it was chosen, and what it has (probe()). The given one, as it is; else,
    among .venv's and the python3s on PATH, the first whose torch sees CUDA (so a GPU image's own torch
    wins over a CPU-only .venv), preferring one that also has numpy and PyYAML; else the first with torch;
    else ("", why, None), and the caller creates .venv."""
    if given:
        path = shutil.which(given) or given
        return path, "given", probe(path)
    candidates = [VENV_PY] if os.path.exists(VENV_PY) else []
    candidates += [p for name in ("python3", "python3.12", "python3.11", "python") if (p := shutil.which(name))]
    with_torch = [(p, v) for p in dict.fromkeys(candidates) if (v := probe(p)) and v["torch"]]
    if not with_torch:
        return "", "none of .venv and the python3s on PATH has torch", None
    path, found = max(with_torch, key=lambda pv: (pv[1]["cuda"], complete(pv[1])))  # max keeps the first of ties
    where = ".venv" if path == VENV_PY else "found on PATH"
    return path, f"{where}: its torch {'sees CUDA' if found['cuda'] else 'sees no CUDA'}", found


def driver_needed(cuda_build: str | None) -> int | None:
    """The oldest NVIDIA driver (major) that runs a torch built for `cuda_build` ("13.0", "12.6"), by CUDA's
    minor-version compatibility; None for a CPU build or one this does not know."""
    major = (cuda_build or "").split(".")[0]
    return {"13": 580, "12": 525, "11": 450}.get(major)


class Skip(Exception):
    """The step does not apply on this host; the message says why."""


class Check:
    def __init__(self, budget_s: float):
        self.deadline = time.monotonic() + budget_s
        self.steps: list[dict] = []
        self.facts: dict = {}

    def run(self, name: str, timeout_s: float, fn) -> bool:
        started = time.monotonic()
        try:
            left = self.deadline - started
            if left < 5:
                raise Skip("the overall time budget is spent")
            status, detail = "PASS", fn(min(timeout_s, left)) or ""
        except Skip as skip:
            status, detail = "SKIP", str(skip)
        except subprocess.TimeoutExpired as exc:
            status, detail = "FAIL", f"timed out after {exc.timeout:.0f}s"
        except Exception as exc:
            status, detail = "FAIL", str(exc).strip()[-4000:]
        seconds = time.monotonic() - started
        self.steps.append({"step": name, "status": status, "seconds": round(seconds, 1), "detail": detail})
        first_line = detail.splitlines()[0] if detail else ""
        print(f"{status:4} {name:38} {seconds:6.1f}s  {first_line[:150]}", flush=True)
        return status == "PASS"


def sh(command: list[str], timeout: float, env: dict | None = None, log: str | None = None) -> str:
    """Run a command; its output (also saved under var/gpu-check/<log>.log) or an error with the tail of it."""
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )
    output = done.stdout + done.stderr
    if log:
        (Path(os.environ["GPU_CHECK_OUT"]) / f"{log}.log").write_text(output)
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {' '.join(command[:6])}\n{output[-3000:]}")
    return output


def gpu_nodes() -> list[str]:
    return sorted(os.path.basename(p) for p in glob.glob("/dev/nvidia*"))


def render_html(report: dict) -> str:
    colour = {"PASS": "#1a7f37", "FAIL": "#cf222e", "SKIP": "#6e7781"}
    rows = "".join(
        f"<tr><td style='color:{colour[s['status']]};font-weight:bold'>{s['status']}</td>"
        f"<td>{html.escape(s['step'])}</td><td>{s['seconds']}</td><td><pre>{html.escape(s['detail'])}</pre></td></tr>"
        for s in report["steps"]
    )
    facts = html.escape(json.dumps(report["facts"], indent=1))
    return (
        f"<!doctype html><meta charset='utf-8'><title>GPU check {html.escape(report['host'])}</title>"
        "<style>body{font:14px system-ui;margin:2em}td{vertical-align:top;padding:4px 8px;"
        "border-bottom:1px solid #ddd}pre{margin:0;white-space:pre-wrap}</style>"
        f"<h1>GPU check: {html.escape(report['host'])}</h1><p>{report['started']}, {report['seconds']} s</p>"
        f"<table><tr><th>status</th><th>step</th><th>s</th><th>detail</th></tr>{rows}</table>"
        f"<h2>Figures</h2><pre>{facts}</pre>"
    )
