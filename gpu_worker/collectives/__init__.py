"""Reference collectives built on point-to-point send/recv, the multi-rank launcher, and bandwidth helpers."""

from gpu_worker.collectives.comm import Comm, ForbiddenCollective, forbid_library_collectives
from gpu_worker.collectives.launcher import LaunchTimeout, RankFailed, launch

__all__ = ["Comm", "ForbiddenCollective", "forbid_library_collectives", "LaunchTimeout", "RankFailed", "launch"]
