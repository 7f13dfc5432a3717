"""What one experiment costs the worker: `python -m gpu_worker.experiment_runner.bench [--num-requests N]`.

Runs the default experiment, the same workload with prefix caching off (the baseline) and the default on the
modeled H100 clock, in this process, and prints each one's worker time, throughput and TTFT p95, with ratios.
"""

import argparse
import json
import sys
import time

from gpu_worker.contract.knobs import DEFAULTS

from .run import run_experiment


def measure(config: dict) -> dict:
    started = time.perf_counter()
    result = run_experiment(config)
    metrics = result["metrics"]
    return {
        "wall_s": time.perf_counter() - started,
        "worker_s": metrics["worker_s"],
        "throughput_tok_s": metrics["throughput_tok_s"],
        "ttft_p95_ms": metrics["ttft_ms"]["p95"],
        "device": result["device"],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.experiment_runner.bench")
    parser.add_argument("--workload", default=DEFAULTS["workload"], choices=["chat", "long-prompt", "shared-prefix"])
    parser.add_argument("--num-requests", type=int, default=DEFAULTS["num_requests"])
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    base = {"workload": args.workload, "num_requests": args.num_requests}
    cold = measure({"num_requests": 1, "arrivals": "all-at-once"})  # model load and torch's first calls
    default = measure(base)
    baseline = measure({**base, "enable_prefix_caching": False})
    modeled = measure({**base, "clock": "h100-model"})  # what the presets use: more steps, each one cheap
    print(
        f"device {default['device']}, workload {args.workload}, {args.num_requests} requests; "
        f"worker_s = engine loop, wall_s = whole call; a cold start (model load) adds {cold['wall_s']:.2f} s once"
    )
    rows = (
        ("default (prefix caching on)", default),
        ("baseline (prefix caching off)", baseline),
        ("default on the modeled H100 clock", modeled),
    )
    for name, row in rows:
        print(
            f"{name:34} worker {row['worker_s']:6.2f} s  wall {row['wall_s']:6.2f} s  "
            f"{row['throughput_tok_s']:7.1f} tok/s  TTFT p95 {row['ttft_p95_ms']:8.1f} ms"
        )
    print(
        f"ratio default/baseline: worker time {default['worker_s'] / baseline['worker_s']:.2f}x, "
        f"throughput {default['throughput_tok_s'] / baseline['throughput_tok_s']:.2f}x; "
        f"modeled clock/default worker time {modeled['worker_s'] / default['worker_s']:.2f}x"
    )
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"default": default, "baseline": baseline, "modeled": modeled}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
