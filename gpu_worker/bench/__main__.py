"""Dispatch `python -m gpu_worker.bench NAME [args]` to gpu_worker/bench/NAME.py:main."""

import importlib
import sys

BENCHMARKS = ("engine", "engine_profile", "collectives", "attention")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHMARKS:
        print(f"usage: python -m gpu_worker.bench {{{'|'.join(BENCHMARKS)}}} --out FILE", file=sys.stderr)
        return 2
    module = importlib.import_module(f"gpu_worker.bench.{argv[0]}")
    return module.main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
