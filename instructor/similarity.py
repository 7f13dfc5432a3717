"""How alike learners' latest submits to one lab are (copydetect's winnowed fingerprints, starter code left out).

A pair's figure is the larger of the two shares: how much of one learner's code (after the starter's lines
are removed as boilerplate) appears in the other's. Figures are a lead for a person to read, never a verdict.
"""

import io
from dataclasses import dataclass

NOISE_K = 25  # tokens: shorter runs in common are ignored (copydetect's noise threshold)
WINDOW = 1  # guarantee threshold = K + WINDOW - 1 (copydetect's defaults)
SHOWN_OVER = 0.5  # pairs at or above this share are listed
MAX_PAIRS = 100


@dataclass(frozen=True)
class Pair:
    first: object  # Submission
    second: object
    share: float  # 0..1, the larger direction
    first_in_second: float
    second_in_first: float


def _fingerprint(source: str, boilerplate=None):
    from copydetect import CodeFingerprint  # imported when a report is asked for: it brings numpy

    return CodeFingerprint("submission.py", NOISE_K, WINDOW, boilerplate=boilerplate, fp=io.StringIO(source))


def similar_pairs(submissions, *, starter: str = "", shown_over: float = SHOWN_OVER) -> list[Pair]:
    """Every pair of `submissions` (one per learner) whose share is at least `shown_over`, most alike first."""
    from copydetect import compare_files

    boilerplate = None
    if starter.strip():
        import numpy

        boilerplate = numpy.unique(numpy.array(list(_fingerprint(starter).hashes)))
    prints = []
    for submission in submissions:
        fingerprint = _fingerprint(submission.source or "", boilerplate)
        if len(fingerprint.hashes):
            prints.append((submission, fingerprint))
    pairs = []
    for index, (first, first_print) in enumerate(prints):
        for second, second_print in prints[index + 1 :]:
            _tokens, (first_in_second, second_in_first), _slices = compare_files(first_print, second_print)
            share = max(first_in_second, second_in_first)
            if share >= shown_over:
                pairs.append(Pair(first, second, float(share), float(first_in_second), float(second_in_first)))
    pairs.sort(key=lambda pair: -pair.share)
    return pairs[:MAX_PAIRS]
