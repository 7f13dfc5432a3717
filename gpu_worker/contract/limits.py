"""Resource limits for one sandboxed run: wall clock, CPU, memory, files, processes, output.

Per-process limits are rlimits; `run_memory_bytes` and `run_pids` bound the run as a whole
(every process it starts together) through its cgroup, or a poller where the host has none."""

from dataclasses import dataclass, fields, replace

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class Limits:
    wall_s: float = 20.0  # whole run, killed (process group and pid namespace) when exceeded
    cpu_s: int = 10  # RLIMIT_CPU per process
    memory_bytes: int = 3 * GIB  # RLIMIT_AS per process (RLIMIT_DATA where torch maps CUDA); torch maps ~0.8 GB
    run_memory_bytes: int = 6 * GIB  # resident memory of the whole run (all processes, its /tmp too)
    run_pids: int = 512  # processes and threads of the whole run
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
        if self.run_memory_bytes < 64 * MIB:
            raise ValueError(f"Limits.run_memory_bytes must be at least 64 MiB, got {self.run_memory_bytes}")

    def updated(self, overrides: dict | None) -> "Limits":
        """These limits with the keys of `overrides` (lab.yaml style names) replaced."""
        if not overrides:
            return self
        unknown = set(overrides) - LIMIT_FIELDS
        if unknown:
            raise ValueError(f"Limits: unknown field(s) {sorted(unknown)}; known: {sorted(LIMIT_FIELDS)}")
        return replace(self, **overrides)


# The names a lab's lab.yaml may set under `limits:`; labs/content_reader.py validates against these.
LIMIT_FIELDS = frozenset(field.name for field in fields(Limits))
