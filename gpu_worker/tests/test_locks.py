"""The lock files (scripts/lock.py) hold every pin the requirements files ask for, at the same version."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            pins |= _pins(ROOT / line[3:].strip())
        elif "==" in line:
            name, version = line.split("==")
            pins[name.split("[")[0].strip().lower().replace("_", "-")] = version.strip()
    return pins


def test_each_lock_pins_what_its_requirements_file_asks_for():
    for lock, requirements in {
        "requirements.lock": "requirements.txt",
        "requirements-worker.lock": "requirements-worker.txt",
    }.items():
        locked = _pins(ROOT / lock)
        wanted = _pins(ROOT / requirements)
        assert {name: locked.get(name) for name in wanted} == wanted, f"{lock} is stale: run scripts/lock.py"


def test_a_pin_lives_in_one_requirements_file():
    seen = {}
    for path in sorted(ROOT.glob("requirements*.txt")):
        for line in path.read_text().splitlines():
            line = line.split("#")[0].strip()
            if "==" in line:
                name = line.split("==")[0].split("[")[0].lower()
                assert name not in seen, f"{name} pinned in {seen[name]} and {path.name}"
                seen[name] = path.name
