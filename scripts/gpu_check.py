"""`make gpu-check`: prove the GPU path on this host, from a fresh clone, in a few minutes.

Runs each step with its own timeout (and all of them inside one overall budget), prints one PASS / FAIL /
SKIP line per step, and writes var/gpu-check/report.json and report.html. On a host without a usable
NVIDIA GPU the GPU steps are SKIPped with the reason, so the script itself can be checked anywhere.
Standard library only: it runs before the virtual environment exists.
"""

import argparse
import glob
import html
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "var" / "gpu-check"
PY = str(ROOT / ".venv" / "bin" / "python")
sys.path.insert(0, str(ROOT))
from gpu_worker.contract import lab_slugs  # noqa: E402  (standard library only, like this script)


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
        (OUT / f"{log}.log").write_text(output)
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {' '.join(command[:6])}\n{output[-3000:]}")
    return output


def gpu_nodes() -> list[str]:
    return sorted(os.path.basename(p) for p in glob.glob("/dev/nvidia*"))


def main(argv: list[str]) -> int:
    global OUT
    parser = argparse.ArgumentParser(prog="scripts/gpu_check.py")
    parser.add_argument("--budget", type=float, default=450, help="seconds for all steps together")
    parser.add_argument("--out", default=str(OUT), help="report folder (default var/gpu-check)")
    args = parser.parse_args(argv)
    OUT = Path(args.out).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    check = Check(args.budget)
    started = time.time()
    state = {"cuda": False, "gpus": 0}

    def driver(timeout):
        if not shutil.which("nvidia-smi"):
            raise Skip("no nvidia-smi: not a GPU host")
        out = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"], timeout)
        check.facts["gpus"] = [line.strip() for line in out.splitlines() if line.strip()]
        major = int(check.facts["gpus"][0].split(",")[1].strip().split(".")[0])
        if major < 580:
            raise RuntimeError(
                f"driver {major} is older than 580, which torch 2.13's CUDA 13 wheels need; "
                f"install the CUDA 12 build instead (README, GPU host)\n{out}"
            )
        return out.strip().replace("\n", "; ")

    def device_nodes(timeout):
        nodes = gpu_nodes()
        if not any(n[len("nvidia") :].isdigit() for n in nodes):
            raise Skip("no /dev/nvidia<N>: not a GPU host")
        if "nvidia-uvm" not in nodes and shutil.which("nvidia-modprobe"):
            subprocess.run(["nvidia-modprobe", "-u", "-c0"], timeout=timeout, capture_output=True)
            nodes = gpu_nodes()
        if "nvidia-uvm" not in nodes:
            return f"{', '.join(nodes)}; nvidia-uvm missing: the CUDA step's first call outside the sandbox makes it"
        return ", ".join(nodes)

    def compiler(timeout):
        cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if not cc:
            raise RuntimeError("no C compiler: Triton compiles its launcher with one on first use")
        python = PY if os.path.exists(PY) else sys.executable
        include = sh([python, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"], timeout).strip()
        if not os.path.exists(os.path.join(include, "Python.h")):
            raise RuntimeError(f"no Python.h under {include}: install the python3-dev headers")
        return f"{cc}; {include}/Python.h"

    def bubblewrap(timeout):
        if not shutil.which("bwrap"):
            raise RuntimeError("bwrap not found: the grading sandbox needs bubblewrap")
        sh(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"], timeout)
        return sh(["bwrap", "--version"], timeout).strip()

    def venv(timeout):
        fresh = not os.path.exists(PY)
        if fresh:
            env = {"PIP_EXTRA_INDEX_URL": os.environ["TORCH_INDEX_URL"]} if os.environ.get("TORCH_INDEX_URL") else {}
            sh(["bash", "scripts/bootstrap.sh"], timeout, env=env, log="install")
        out = sh(
            [
                PY,
                "-c",
                "import json, torch, triton; print(json.dumps([torch.__version__, torch.version.cuda,"
                " triton.__version__]))",
            ],
            timeout,
        )
        torch_version, cuda, triton_version = json.loads(out.strip().splitlines()[-1])
        pins = dict(
            line.split("==")
            for line in (ROOT / "requirements-worker.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")
        )
        found = f"torch {torch_version} (CUDA {cuda}), triton {triton_version}"
        if torch_version.split("+")[0] != pins["torch"] or (cuda and triton_version != pins["triton"]):
            raise RuntimeError(
                f"{found} differ from requirements-worker.txt (torch {pins['torch']}, triton "
                f"{pins['triton']}): run scripts/bootstrap.sh"
            )
        return f"{'installed' if fresh else 'existing .venv'}: {found}"

    def device(timeout):
        out = sh(
            [
                PY,
                "-c",
                "import json; from gpu_worker.engine.device import device_status;"
                " import torch; s = device_status(); s['gpus'] = torch.cuda.device_count(); print(json.dumps(s))",
            ],
            timeout,
        )
        status = json.loads(out.strip().splitlines()[-1])
        check.facts["device_status"] = status
        state["cuda"], state["gpus"] = status["cuda_usable"], status["gpus"]
        if status["gpu_host"] and not status["cuda_usable"]:
            raise RuntimeError(status["reason"])
        if status["gpu_host"] and "nvidia-uvm" not in gpu_nodes():
            raise RuntimeError(
                "/dev/nvidia-uvm is still missing after a CUDA call: run `nvidia-modprobe -u -c0` as "
                "root before the worker starts, or the sandbox cannot use the GPU"
            )
        if not status["cuda_usable"]:
            raise Skip(status["reason"])
        return f"{status['device']}, {status['gpus']} GPU(s)"

    def needs_cuda():
        if not state["cuda"]:
            raise Skip("no usable CUDA on this host")

    def gpu_tests(timeout):
        needs_cuda()
        # the Triton and NCCL tests run in their own steps below
        out = sh(
            [
                PY,
                "-m",
                "pytest",
                "gpu_worker/tests",
                "-m",
                "gpu",
                "-q",
                "-p",
                "no:randomly",
                "-rs",
                "--ignore=gpu_worker/tests/engine/test_triton_attention.py",
                "--ignore=gpu_worker/tests/collectives/test_nccl.py",
            ],
            timeout,
            log="gpu-tests",
        )
        return out.strip().splitlines()[-1]

    def lab(slug):
        def grade_reference(timeout):
            needs_cuda()
            out = sh(
                [
                    PY,
                    "-m",
                    "gpu_worker.grade",
                    slug,
                    f"gpu_worker/graders/fixtures/{slug}/reference.py",
                    "--mode",
                    "submit",
                ],
                timeout,
                log=f"lab-{slug}",
            )
            result = json.loads(out[out.index("{") :])
            device_used = result.get("worker", {}).get("device", "?")
            if result["verdict"] != "accepted":
                raise RuntimeError(f"reference graded {result['verdict']}: {result.get('message', '')}")
            if "cuda" not in str(device_used):
                raise RuntimeError(f"graded on {device_used}, not CUDA")
            return f"accepted on {device_used}, score {result['score']}/{result['max_score']}"

        return grade_reference

    def triton_correct(timeout):
        needs_cuda()
        out = sh(
            [PY, "-m", "pytest", "gpu_worker/tests/engine/test_triton_attention.py", "-q", "-p", "no:randomly"],
            timeout,
            log="triton-tests",
        )
        return out.strip().splitlines()[-1]

    def attention_bench(timeout):
        needs_cuda()
        path = OUT / "attention.json"
        sh(
            [PY, "-m", "gpu_worker.bench", "attention", "--out", str(path), "--small", "--repeats", "5"],
            timeout,
            log="bench-attention",
        )
        headline = json.loads(path.read_text())["cases"][-1]
        check.facts["attention"] = headline
        share, versus = headline["triton_share_of_peak"], headline["sdpa_over_triton"]
        summary = (
            f"batch {headline['num_seqs']} x {headline['max_len']}: Triton {headline['triton_gbps']:.0f} GB/s"
            f" ({share:.0%} of peak), {versus:.2f}x SDPA's speed"
        )
        if (share is not None and share < 0.6) or versus < 1.0:
            raise RuntimeError(f"below target (>= 60% of peak, >= 1.0x SDPA): {summary}")
        return summary

    def engine_bench(timeout):
        needs_cuda()
        path = OUT / "engine.json"
        sh(
            [
                PY,
                "-m",
                "gpu_worker.bench",
                "engine",
                "--out",
                str(path),
                "--num-requests",
                "32",
                "--shared-requests",
                "8",
                "--sample-tokens",
                "16",
            ],
            timeout,
            log="bench-engine",
        )
        result = json.loads(path.read_text())
        check.facts["engine"] = {r["system"]: r["throughput_tok_s"] for r in result["systems"]}
        paged = result["systems"][1]
        hf = result.get("transformers_generate")
        return f"paged {paged['throughput_ratio_to_static']:.2f}x static" + (
            f", {paged['throughput_ratio_to_transformers']:.2f}x transformers generate" if hf else ""
        )

    def collectives(timeout):
        needs_cuda()
        if state["gpus"] < 2:
            raise Skip(f"{state['gpus']} GPU: NCCL collectives need 2 or more")
        sh(
            [PY, "-m", "pytest", "gpu_worker/tests/collectives/test_nccl.py", "-q", "-p", "no:randomly"],
            timeout / 2,
            log="nccl-tests",
        )
        path = OUT / "collectives.json"
        sh(
            [
                PY,
                "-m",
                "gpu_worker.bench",
                "collectives",
                "--out",
                str(path),
                "--backend",
                "nccl",
                "--world-size",
                str(min(state["gpus"], 8)),
                "--max-bytes",
                str(64 * 2**20),
                "--target-seconds",
                "0.2",
                "--rounds",
                "1",
            ],
            timeout / 2,
            log="bench-collectives",
        )
        return f"NCCL on {min(state['gpus'], 8)} GPUs: tests pass, sweep in collectives.json"

    check.run("preflight: driver", 30, driver)
    check.run("preflight: device nodes", 30, device_nodes)
    check.run("preflight: compiler + Python.h", 30, compiler)
    check.run("preflight: bubblewrap", 30, bubblewrap)
    if check.run("venv + install", 300, venv):
        check.run("CUDA usable (device_status)", 60, device)
        check.run("gpu-marked tests", 240, gpu_tests)
        for slug in lab_slugs():
            check.run(f"lab {slug}: reference on CUDA", 120, lab(slug))
        check.run("Triton correctness", 120, triton_correct)
        check.run("Triton bandwidth vs SDPA", 150, attention_bench)
        check.run("engine benchmark (small)", 150, engine_bench)
        check.run("collectives on NCCL", 240, collectives)
    report = {
        "host": platform.node(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(time.time() - started, 1),
        "steps": check.steps,
        "facts": check.facts,
    }
    (OUT / "report.json").write_text(json.dumps(report, indent=1))
    (OUT / "report.html").write_text(render_html(report))
    failed = [s["step"] for s in check.steps if s["status"] == "FAIL"]
    print(
        f"{'FAIL' if failed else 'PASS'} gpu-check in {report['seconds']}s: "
        f"{sum(s['status'] == 'PASS' for s in check.steps)} passed, {len(failed)} failed, "
        f"{sum(s['status'] == 'SKIP' for s in check.steps)} skipped; report in {OUT}/report.html"
    )
    return 1 if failed else 0


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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
