"""The torch and triton releases the worker supports, and a check of what a host has.

Standard library only (read through importlib.metadata, torch is never imported), so `make gpu-check`
can run it with any Python before it knows whether torch works there. requirements-worker.txt pins one
tested set inside this range for hosts that install from scratch; an image's own CUDA torch inside it
is used as it is (README, GPU host).
"""

from importlib import metadata

TORCH = ((2, 9), (2, 13))  # oldest and newest supported (major, minor), both included
TRITON = ((3, 5), (3, 7))  # the triton releases those torch builds ship with


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def _span(bounds: tuple[tuple[int, int], tuple[int, int]]) -> str:
    (a, b), (c, d) = bounds
    return f"{a}.{b}–{c}.{d}"


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _triton_torch_wants() -> str | None:
    """The exact triton a CUDA torch wheel pins (`triton==X; platform_system == "Linux"`), if any."""
    for requirement in metadata.requires("torch") or []:
        name, _, rest = requirement.partition("==")
        if name.strip() == "triton" and rest:
            return rest.split(";")[0].strip()
    return None


def found() -> dict:
    """What this Python has: torch, triton, and the triton its torch asks for."""
    torch = _installed("torch")
    return {
        "torch": torch,
        "triton": _installed("triton"),
        "triton_wanted": _triton_torch_wants() if torch else None,
        "numpy": _installed("numpy"),
        "PyYAML": _installed("PyYAML"),
    }


def problems(versions: dict | None = None) -> list[str]:
    """Why this host's torch/triton is outside what the worker supports; empty when it is inside."""
    v = found() if versions is None else versions
    out = []
    if not v["torch"]:
        return ["torch is not installed"]
    if not TORCH[0] <= _minor(v["torch"]) <= TORCH[1]:
        out.append(f"torch {v['torch']} is outside the supported {_span(TORCH)}")
    if v["triton"] and not TRITON[0] <= _minor(v["triton"]) <= TRITON[1]:
        out.append(f"triton {v['triton']} is outside the supported {_span(TRITON)}")
    if v["triton_wanted"] and v["triton"] and v["triton"].split("+")[0] != v["triton_wanted"]:
        out.append(f"torch {v['torch']} was built for triton {v['triton_wanted']}, but {v['triton']} is installed")
    if v["triton_wanted"] and not v["triton"]:
        out.append(f"torch {v['torch']} needs triton {v['triton_wanted']}, which is not installed")
    return out


def summary(versions: dict | None = None) -> str:
    v = found() if versions is None else versions
    return ", ".join(f"{name} {v[name] or 'missing'}" for name in ("torch", "triton", "numpy", "PyYAML"))
