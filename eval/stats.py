"""Uncertainty for evaluation numbers: Wilson intervals for rates, bootstrap intervals for means.

Why intervals at all: eval sets here are tens of cases, where one case moves a rate by several
points. A number without its interval invites reading noise as an improvement.

- Rates of 0/1 outcomes (exact match, filter accuracy, answered) use the Wilson score interval:
  unlike the normal approximation it stays inside [0, 1] and behaves at 0/n and n/n.
- Means of graded values (token F1, recall@4, MRR) use SciPy's percentile bootstrap, seeded so
  that the same run always reports the same interval.
- Percentiles (latency p50/p95) are NumPy's (linear between order statistics), so they agree
  with what an analyst would compute from ``cases.jsonl``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
from scipy import stats

__all__ = ["Z95", "Interval", "bootstrap_mean", "mean_interval", "percentile", "present", "rate_interval", "wilson"]

Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""


class Interval(NamedTuple):
    """A point estimate with a 95% interval, over ``n`` contributing cases."""

    value: float
    ci_low: float
    ci_high: float
    n: int

    def to_dict(self, digits: int = 4) -> dict[str, float | int]:
        """``{"value", "ci_low", "ci_high", "n"}``, rounded for JSON reports."""
        return {
            "value": round(self.value, digits),
            "ci_low": round(self.ci_low, digits),
            "ci_high": round(self.ci_high, digits),
            "n": self.n,
        }


def wilson(successes: int, n: int, *, z: float = Z95) -> Interval:
    """Wilson score interval for ``successes`` out of ``n``.

    Raises:
        ValueError: ``n`` is not positive or ``successes`` is outside ``0..n``.
    """
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n > 0, got {successes}/{n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    margin = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # At 0/n and n/n the bound is exactly 0 or 1; floating point would leave 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, centre - margin)
    high = 1.0 if successes == n else min(1.0, centre + margin)
    return Interval(p, low, high, n)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100), linear between order statistics.

    Raises:
        ValueError: ``values`` is empty or ``q`` is outside 0–100.
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be within 0..100, got {q}")
    return float(np.percentile(np.asarray(values, dtype=float), q))


def bootstrap_mean(values: Sequence[float], *, resamples: int = 2000, seed: int = 0, level: float = 0.95) -> Interval:
    """Mean with a percentile-bootstrap interval (``resamples`` draws with replacement, seeded).

    Without spread (one value, or all equal) the interval is the point: there is nothing to resample.

    Raises:
        ValueError: ``values`` is empty.
    """
    if not values:
        raise ValueError("bootstrap of no values")
    n = len(values)
    point = sum(values) / n
    if n == 1 or min(values) == max(values):
        return Interval(point, point, point, n)
    result = stats.bootstrap(
        (np.asarray(values, dtype=float),), np.mean, n_resamples=resamples, confidence_level=level,
        method="percentile", rng=np.random.default_rng(seed),
    )  # fmt: skip
    interval = result.confidence_interval
    return Interval(point, float(interval.low), float(interval.high), n)


def present(values: Iterable[float | None]) -> list[float]:
    """The values that are not None (a case with nothing to compare against contributes none)."""
    return [float(v) for v in values if v is not None]


def rate_interval(values: Iterable[float | None]) -> Interval | None:
    """Wilson interval over 0/1 values, ignoring None; None when no value is present.

    Raises:
        ValueError: a value is neither 0 nor 1.
    """
    xs = present(values)
    if not xs:
        return None
    if any(x not in (0.0, 1.0) for x in xs):
        raise ValueError("a rate needs 0/1 values")
    return wilson(int(sum(xs)), len(xs))


def mean_interval(values: Iterable[float | None], *, seed: int = 0) -> Interval | None:
    """Bootstrap interval of the mean, ignoring None; None when no value is present."""
    xs = present(values)
    return bootstrap_mean(xs, seed=seed) if xs else None
