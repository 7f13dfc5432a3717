"""Finds runs of 12 consecutive words shared between the seed documents and the course content."""

import re
from pathlib import Path

RUN = 12
WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower().replace("’", "'"))


def seed_runs(seed_dir: Path) -> set[tuple[str, ...]]:
    runs = set()
    for path in sorted(seed_dir.glob("*.txt")):
        tokens = words(path.read_text(encoding="utf-8", errors="replace"))
        runs.update(tuple(tokens[i : i + RUN]) for i in range(len(tokens) - RUN + 1))
    return runs


def copied_runs(content_dir: Path, runs: set[tuple[str, ...]]) -> list[tuple[str, str]]:
    """(file, the shared words) for each content file holding a seed run."""
    found = []
    for path in sorted(content_dir.rglob("*")):
        if path.suffix not in {".md", ".yaml", ".yml"}:
            continue
        tokens = words(path.read_text(encoding="utf-8"))
        for i in range(len(tokens) - RUN + 1):
            if tuple(tokens[i : i + RUN]) in runs:
                found.append((str(path.relative_to(content_dir)), " ".join(tokens[i : i + RUN])))
                break
    return found
