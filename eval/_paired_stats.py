"""Statistics for paired comparisons: McNemar's exact test and a paired bootstrap interval.

Both from SciPy (the exact binomial test; the bootstrap of ``eval.stats``), seeded, so a
comparison gives the same interval every time it is rendered.
"""

from __future__ import annotations

from collections.abc import Sequence

from scipy import stats

from eval.stats import bootstrap_mean

__all__ = ["mcnemar_exact", "paired_bootstrap"]


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: P(a split at least as uneven as b:c) under Binomial(b + c, 1/2)."""
    if b + c == 0:
        return 1.0
    return float(stats.binomtest(min(b, c), b + c, 0.5).pvalue)


def paired_bootstrap(diffs: Sequence[float], *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile 95% interval of the mean of ``diffs`` (per-case B − A), resampling cases."""
    if not diffs:
        raise ValueError("no differences to resample")
    interval = bootstrap_mean(diffs, resamples=n_boot, seed=seed)
    return interval.ci_low, interval.ci_high
