"""`make gpu-check`: prove the GPU path on this host, from a fresh clone, in a few minutes.

Runs each step with its own timeout (and all of them inside one overall budget), prints one PASS / FAIL /
SKIP line per step, and writes var/gpu-check/report.json and report.html. On a host without a usable
NVIDIA GPU the GPU steps are SKIPped with the reason, so the script itself can be checked anywhere.

It uses the Python that is there: `--python` (or PYTHON=... make gpu-check), else .venv's, else the first
python3 on PATH whose torch sees CUDA (else one that has torch at all). It installs nothing when torch,
numpy and PyYAML import there; only a host with none of them gets .venv from the lock files. Without
bubblewrap the sandbox step FAILs and the lab steps still run, unsandboxed, saying so on every line.
Standard library only: it runs before anything is installed.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from gpu_check_parts import (  # noqa: E402
    VENV_PY,
    Check,
    Skip,
    complete,
    driver_needed,
    find_python,
    gpu_nodes,
    missing,
    probe,
    render_html,
    sh,
)

from gpu_worker.contract import lab_slugs  # noqa: E402  (standard library only, like this script)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gpu_check.py")
    parser.add_argument("--budget", type=float, default=450, help="seconds for all steps together")
    parser.add_argument("--out", default=str(ROOT / "var" / "gpu-check"), help="report folder")
    parser.add_argument("--python", default=os.environ.get("GPU_CHECK_PYTHON"), help="the Python to use")
    parser.add_argument("--labs-on-cpu", action="store_true", help="grade the labs' references on a CPU host too")
    args = parser.parse_args(argv)
    out_dir = Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["GPU_CHECK_OUT"] = str(out_dir)
    check = Check(args.budget)
    started = time.time()
    state = {"cuda": False, "gpus": 0, "python": "", "bwrap": False, "has_pytest": False, "pytest_ignores": []}

    def python() -> str:
        if not state["python"]:
            raise Skip("no Python with torch to run it (see python + packages)")
        return state["python"]

    def unsandboxed_env() -> dict:
        return {} if state["bwrap"] else {"GPU_WORKER_UNSAFE_NO_SANDBOX": "1"}

    def unsandboxed_note(tests: bool = False) -> str:
        if state["bwrap"]:
            return ""
        return (
            "UNSANDBOXED (no bubblewrap; bubblewrap-only tests skipped): " if tests else "UNSANDBOXED (no bubblewrap): "
        )

    def pytest(*args: str) -> list[str]:
        if not state["has_pytest"]:
            raise Skip(f"no pytest in {python()}: pip install -r requirements-worker-test.txt there")
        return [python(), "-m", "pytest", "-c", "gpu_worker/pytest.ini", "-q", "-p", "no:randomly", *args]

    def pick() -> tuple[str, str, dict | None]:  # once: the driver and the packages steps both ask
        if "picked" not in state:
            state["picked"] = find_python(args.python)
        return state["picked"]

    def packages(timeout):
        chosen, how, found = pick()
        installed = False
        if not complete(found):
            if how == "given" and not found:
                raise RuntimeError(f"{chosen} (given) does not run, or cannot import gpu_worker; installed nothing")
            if how == "given" or found["cuda"]:  # never a second torch beside the host's own
                raise RuntimeError(
                    f"{chosen} ({how}) lacks {missing(found)}: pip install -r requirements-worker-base.txt "
                    "there, or point PYTHON= at a Python that has them; installed nothing"
                )
            env = {"PIP_EXTRA_INDEX_URL": os.environ["TORCH_INDEX_URL"]} if os.environ.get("TORCH_INDEX_URL") else {}
            sh(["bash", "scripts/bootstrap.sh"], timeout, env=env, log="install")
            chosen, how, installed = VENV_PY, f"{how}, so a new .venv from the lock files", True
            found = probe(chosen)
            if not found:
                raise RuntimeError(f"{chosen} cannot import gpu_worker after the install")
        state["python"], state["has_pytest"] = chosen, found["has_pytest"]
        check.facts["python"] = {"path": chosen, "chosen": how, **found}
        if not found["has_hypothesis"]:  # property tests only; no gpu marker among them
            state["pytest_ignores"] = [
                "--ignore=gpu_worker/tests/engine/test_block_pool.py",
                "--ignore=gpu_worker/tests/engine/test_scheduler_invariants.py",
            ]
        summary = (
            f"{'installed .venv' if installed else 'installed nothing'}; torch {found['torch']} (CUDA build "
            f"{found.get('cuda_build')}), triton {found['triton'] or 'none'}, numpy {found['numpy']}, "
            f"PyYAML {found['PyYAML']}, Python {found['python']}: {chosen} ({how})"
        )
        lacks = [name for name in ("pytest",) if not found[f"has_{name}"]]
        if found["problems"] or lacks:
            extra = [f"no {name}: pip install -r requirements-worker-test.txt" for name in lacks]
            raise RuntimeError("; ".join(found["problems"] + extra) + f"\n{summary}")
        return summary

    def driver(timeout):
        if not shutil.which("nvidia-smi"):
            raise Skip("no nvidia-smi: not a GPU host")
        out = sh(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"], timeout)
        check.facts["gpus"] = [line.strip() for line in out.splitlines() if line.strip()]
        major = int(check.facts["gpus"][0].split(",")[1].strip().split(".")[0])
        found = pick()[2]
        torch = f"torch {found['torch']}" if found and found["torch"] else "the lock's torch (PyPI's CUDA 13 build)"
        build = found.get("cuda_build") if found and found["torch"] else "13.0"
        needed = driver_needed(build)
        if needed and major < needed:
            raise RuntimeError(
                f"driver {major} is older than {needed}, which {torch} (CUDA {build}) needs; use a torch built "
                f"for this driver's CUDA, e.g. the CUDA 12 build (README, A GPU host)\n{out}"
            )
        return out.strip().replace("\n", "; ") + (f"; enough for {torch} (CUDA {build})" if needed else "")

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
        include = sh([python(), "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"], timeout).strip()
        if not os.path.exists(os.path.join(include, "Python.h")):
            raise RuntimeError(f"no Python.h under {include}: install the python3-dev headers")
        return f"{cc}; {include}/Python.h"

    def bubblewrap(timeout):
        if not shutil.which("bwrap"):
            raise RuntimeError("bwrap not found: the grading sandbox needs bubblewrap")
        sh(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"], timeout)
        return sh(["bwrap", "--version"], timeout).strip()

    def device(timeout):
        out = sh(
            [
                python(),
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
        python()
        if not state["cuda"]:
            raise Skip("no usable CUDA on this host")

    def gpu_tests(timeout):
        needs_cuda()
        # the Triton and NCCL tests run in their own steps below; without bwrap the rest run unsandboxed
        ignores = [
            "--ignore=gpu_worker/tests/engine/test_triton_attention.py",
            "--ignore=gpu_worker/tests/collectives/test_nccl.py",
        ]
        command = pytest("gpu_worker/tests", "-m", "gpu", "-rs", *state["pytest_ignores"], *ignores)
        out = sh(command, timeout, env=unsandboxed_env(), log="gpu-tests")
        return unsandboxed_note(tests=True) + out.strip().splitlines()[-1]

    def lab(slug):
        def grade_reference(timeout):
            if not args.labs_on_cpu:
                needs_cuda()
            command = [python(), "-m", "gpu_worker.grade", slug, f"gpu_worker/graders/fixtures/{slug}/reference.py"]
            # grade exits 1 for any verdict but accepted: read its JSON either way
            done = subprocess.run(
                [*command, "--mode", "submit"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**os.environ, **unsandboxed_env()},
            )
            out = done.stdout + done.stderr
            (out_dir / f"lab-{slug}.log").write_text(out)
            if "{" not in done.stdout:
                raise RuntimeError(f"{unsandboxed_note()}exit {done.returncode}, no result\n{out[-3000:]}")
            result, _ = json.JSONDecoder().raw_decode(done.stdout[done.stdout.index("{") :])
            device_used = result.get("worker", {}).get("device", "?")
            if result["verdict"] != "accepted":
                raise RuntimeError(
                    f"{unsandboxed_note()}reference graded {result['verdict']}: {result.get('message', '')}"
                )
            if state["cuda"] and "cuda" not in str(device_used):
                raise RuntimeError(f"graded on {device_used}, not CUDA")
            return f"{unsandboxed_note()}accepted on {device_used}, score {result['score']}/{result['max_score']}"

        return grade_reference

    def triton_correct(timeout):
        needs_cuda()
        out = sh(pytest("gpu_worker/tests/engine/test_triton_attention.py"), timeout, log="triton-tests")
        return out.strip().splitlines()[-1]

    def attention_bench(timeout):
        needs_cuda()
        path = out_dir / "attention.json"
        sh(
            [python(), "-m", "gpu_worker.bench", "attention", "--out", str(path), "--small", "--repeats", "5"],
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
        path = out_dir / "engine.json"
        sh(
            [
                python(),
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
        sh(pytest("gpu_worker/tests/collectives/test_nccl.py"), timeout / 2, log="nccl-tests")
        path = out_dir / "collectives.json"
        sh(
            [
                python(),
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
    state["bwrap"] = check.run("preflight: bubblewrap", 30, bubblewrap)
    check.run("python + packages", 300, packages)  # a FAIL here with a Python chosen still runs the rest with it
    check.run("compiler + Python.h", 30, compiler)
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
    (out_dir / "report.json").write_text(json.dumps(report, indent=1))
    (out_dir / "report.html").write_text(render_html(report))
    failed = [s["step"] for s in check.steps if s["status"] == "FAIL"]
    print(
        f"{'FAIL' if failed else 'PASS'} gpu-check in {report['seconds']}s: "
        f"{sum(s['status'] == 'PASS' for s in check.steps)} passed, {len(failed)} failed, "
        f"{sum(s['status'] == 'SKIP' for s in check.steps)} skipped; report in {out_dir}/report.html"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
