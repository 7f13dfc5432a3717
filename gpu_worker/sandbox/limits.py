"""Resource limits for one sandboxed run: wall clock, CPU, memory, files, processes, output."""
from dataclasses import dataclass, fields, replace

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class Limits:
    wall_s: float = 20.0  # whole run, killed (process group and pid namespace) when exceeded
    cpu_s: int = 10  # RLIMIT_CPU per process
    memory_bytes: int = 3 * GIB  # RLIMIT_AS; torch alone maps about 0.8 GB
    file_bytes: int = 16 * MIB  # RLIMIT_FSIZE
    nproc: int = 256  # RLIMIT_NPROC for the sandbox uid (threads count too)
    output_bytes: int = 1 * MIB  # stdout+stderr kept; the rest is drained and dropped
    tmp_bytes: int = 256 * MIB  # size of the private /tmp (a tmpfs)

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{field.name} must be a positive number, got {value!r}")
        if self.memory_bytes < 256 * MIB:
            raise ValueError(f"Limits.memory_bytes must be at least 256 MiB, got {self.memory_bytes}")

    def updated(self, overrides: dict | None) -> "Limits":
        """These limits with the keys of `overrides` (lab.yaml style names) replaced."""
        if not overrides:
            return self
        known = {field.name for field in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise ValueError(f"Limits: unknown field(s) {sorted(unknown)}; known: {sorted(known)}")
        return replace(self, **overrides)
