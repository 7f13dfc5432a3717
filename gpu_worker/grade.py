"""Shell entry point: `python -m gpu_worker.grade LAB FILE --mode run|submit` prints the result JSON."""

import argparse
import json
import sys

from gpu_worker.contract import MODES, lab_slugs
from gpu_worker.grading import grade_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.grade", description=__doc__)
    parser.add_argument("lab", help=" | ".join(lab_slugs()))
    parser.add_argument("file", help="the learner's Python file ('-' reads standard input)")
    parser.add_argument("--mode", choices=MODES, default="submit")
    parser.add_argument("--submission-id", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None, help="fix the hidden cases (debugging only)")
    args = parser.parse_args(argv)
    source = sys.stdin.buffer.read() if args.file == "-" else open(args.file, "rb").read()
    result = grade_run(args.submission_id, args.lab, args.mode, source, seed=args.seed)
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if result["verdict"] == "internal_error" else 0


if __name__ == "__main__":
    sys.exit(main())
