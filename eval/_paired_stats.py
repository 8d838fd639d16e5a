"""Statistics for paired comparisons: McNemar's exact test and a paired bootstrap interval.

Pure Python (``math.comb`` and ``random``), so the harness needs no scipy or numpy, and seeded,
so a comparison gives the same interval every time it is rendered.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = ["mcnemar_exact", "paired_bootstrap"]


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: P(a split at least as uneven as b:c) under Binomial(b + c, 1/2)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / (1 << n))  # int / int stays exact for any n; 2.0**n overflows past 1023


def paired_bootstrap(diffs: Sequence[float], *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile 95% interval of the mean of ``diffs`` (per-case B − A), resampling cases."""
    if not diffs:
        raise ValueError("no differences to resample")
    n = len(diffs)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(n_boot))
    return _quantile(means, 0.025), _quantile(means, 0.975)


def _quantile(ordered: Sequence[float], q: float) -> float:
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
