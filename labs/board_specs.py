"""Which labs have a leaderboard, and for each the trusted figure that ranks it, which way is better, the fixed
workload it is measured on, and which result metrics say in words why a result has no figure. Query
expressions and names only: labs.models, labs.leaderboard and labs.board_standing read this."""

from dataclasses import dataclass

from django.db.models import FloatField, Q
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from gpu_worker.contract import boards


@dataclass(frozen=True)
class BoardSpec:
    """Which trusted figure ranks a lab, and which way is better; the fixed workload's shape is the contract's
    (gpu_worker/contract/boards.py), which the grader measures on."""

    figure: str
    unit: str
    lower_is_better: bool
    workload: str
    value: object  # a query expression giving the figure for one submission
    fixed_workload: Q  # keeps only results measured on the fixed workload (and not flagged as impossible)
    spread: object = None  # a query expression: how far the figure's timed rounds lie apart, in %
    noisy_flag: str = "result__metrics__timing_noisy"  # a JSON path: true when still too spread after retiming
    why_not: tuple = ()  # metrics whose text says why a result has no figure (e.g. "timing_note")
    noisy_devices: tuple = ()  # device kinds whose figures vary from run to run (a busy host's CPU)
    # A workload a site may change (a JSON path to its fingerprint): only figures on the newest one are ranked.
    site_workload: str | None = None


def _number(path: str):
    return Cast(KT(path), FloatField())


SPECS = {
    "paged-attention": BoardSpec(
        figure="median latency",
        unit="ms",
        lower_is_better=True,
        workload=f"decode attention, batch 4, 8 query heads, context {boards.PAGED_CONTEXT}, timed by the grader on "
        "fresh inputs (every output checked), the median of 5 rounds",
        value=_number("result__metrics__median_ms"),
        fixed_workload=Q(result__metrics__timing_context=boards.PAGED_CONTEXT, result__metrics__median_ms__isnull=False)
        & ~Q(result__metrics__has_key="above_peak"),
        spread=_number("result__metrics__timing_spread_pct"),
        why_not=("timing_note",),
        noisy_devices=("cpu",),
    ),
    "scheduler": BoardSpec(
        figure="throughput",
        unit="tokens/step",
        lower_is_better=False,
        workload="a hidden workload this site picks (by default a chat-shaped trace of 24 requests), the same "
        "for every submission, replayed by the grader in a sandbox of its own after an accepted submit",
        value=_number("result__metrics__board__throughput"),
        fixed_workload=Q(result__metrics__board__throughput__isnull=False),
        site_workload="result__metrics__board__workload",  # SCHEDULER_BOARD_WORKLOAD / LEADERBOARD_SEED on workers
    ),
    "ring-allreduce": BoardSpec(
        figure="bus bandwidth",
        unit="GB/s",
        lower_is_better=False,
        workload=f"all-reduce of {boards.RING_BYTES // 2**20} MiB (float32) over {boards.RING_RANKS} ranks, timed by "
        "the grader around the exchange, the median of 5 rounds on fresh values",
        value=_number("result__metrics__board__busbw"),
        fixed_workload=Q(
            result__metrics__board__size=boards.RING_BYTES, result__metrics__board__ranks=boards.RING_RANKS
        ),
        spread=_number("result__metrics__board__spread_pct"),
        noisy_flag="result__metrics__board__noisy",
        why_not=("bandwidth_error",),
        noisy_devices=("cpu",),
    ),
}
