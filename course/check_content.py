"""`python -m course.check_content [content_dir]`: read every module as `load_course` does, recomputing each
worked example, without touching the database; prints what it checked, or the first problem."""

import sys
from pathlib import Path

from .content_reader import DEFAULT_CONTENT_DIR, read_course
from .content_schema import ContentError


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else DEFAULT_CONTENT_DIR
    try:
        modules = read_course(root)  # the reader runs check_worked on every worked.yaml
    except ContentError as error:
        print(f"FAILED: {error}")
        return 1
    for module in modules:
        print(f"{module.order:02d}-{module.slug}: {len(module.worked)} worked examples recomputed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
