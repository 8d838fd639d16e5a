"""Binary classification metrics for grader verdicts, each with a 95% confidence interval.

A grader experiment yields (label, prediction) pairs, ``True`` being the positive verdict
(relevant / grounded / useful). Grader sets are small (tens to hundreds of cases) and a point
value alone overstates what they can show; the intervals say how much. Every metric is a
function of the confusion matrix, so the percentile bootstrap over cases redraws the cells
(equivalent to resampling the cases, and far cheaper), stratified by label: each resample keeps
the set's numbers of positives and negatives.

Degenerate cases never divide by zero. A metric whose formula is 0/0 is ``None`` (JSON null)
and means "not measurable on this set", except MCC, which is 0 when a margin is empty::

    accuracy            None when n == 0
    precision           None when nothing was predicted positive (tp + fp == 0)
    recall              None when there are no positive labels (tp + fn == 0)
    f1                  2tp / (2tp + fp + fn); None when every case is a true negative
    balanced_accuracy   mean of the recalls of the classes present in the labels (one class
                        present: that class's recall); None when n == 0
    kappa               None when expected agreement is 1 (labels and predictions all the
                        same single class); a constant predictor on mixed labels scores 0
    mcc                 0 when any margin is empty (e.g. a constant predictor), as sklearn does;
                        None when n == 0

Bootstrap intervals ignore resamples where the metric is ``None``; an interval is ``None`` when
every resample is. Accuracy also gets a Wilson score interval (``eval.stats.wilson``), which
needs no resampling and behaves at 0/n and n/n.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from eval.stats import percentile, wilson

__all__ = [
    "METRICS",
    "ClassificationReport",
    "Confusion",
    "Estimate",
    "accuracy",
    "balanced_accuracy",
    "bootstrap_interval",
    "classify",
    "cohen_kappa",
    "f1",
    "mcc",
    "precision",
    "recall",
]


class Confusion(NamedTuple):
    """Counts of a binary confusion matrix, the positive class being ``True``."""

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @classmethod
    def from_pairs(cls, labels: Iterable[bool], predictions: Iterable[bool]) -> Confusion:
        tp = fp = tn = fn = 0
        for label, pred in zip(labels, predictions, strict=True):
            if pred:
                tp, fp = (tp + 1, fp) if label else (tp, fp + 1)
            else:
                fn, tn = (fn + 1, tn) if label else (fn, tn + 1)
        return cls(tp, fp, tn, fn)

    def to_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn}


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def accuracy(c: Confusion) -> float | None:
    return _ratio(c.tp + c.tn, c.n)


def precision(c: Confusion) -> float | None:
    return _ratio(c.tp, c.tp + c.fp)


def recall(c: Confusion) -> float | None:
    return _ratio(c.tp, c.tp + c.fn)


def f1(c: Confusion) -> float | None:
    return _ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn)


def balanced_accuracy(c: Confusion) -> float | None:
    rates = [r for r in (_ratio(c.tp, c.tp + c.fn), _ratio(c.tn, c.tn + c.fp)) if r is not None]
    return sum(rates) / len(rates) if rates else None


def cohen_kappa(c: Confusion) -> float | None:
    if not c.n:
        return None
    observed = (c.tp + c.tn) / c.n
    expected = ((c.tp + c.fn) * (c.tp + c.fp) + (c.tn + c.fp) * (c.tn + c.fn)) / c.n**2
    return _ratio(observed - expected, 1.0 - expected) if expected < 1.0 else None


def mcc(c: Confusion) -> float | None:
    if not c.n:
        return None
    den = math.sqrt(float((c.tp + c.fp) * (c.tp + c.fn) * (c.tn + c.fp) * (c.tn + c.fn)))
    return (c.tp * c.tn - c.fp * c.fn) / den if den else 0.0


METRICS: dict[str, Callable[[Confusion], float | None]] = {
    "accuracy": accuracy,
    "balanced_accuracy": balanced_accuracy,
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "kappa": cohen_kappa,
    "mcc": mcc,
}
"""Every metric by the name used in reports and summaries, in report order."""


class Estimate(NamedTuple):
    """A point value and its 95% interval; any of them ``None`` when not measurable."""

    value: float | None
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, float | None]:
        return {"value": self.value, "low": self.low, "high": self.high}


def _resamples(c: Confusion, resamples: int, seed: int) -> list[Confusion]:
    # Stratified by label: positives and negatives are redrawn separately, keeping their counts.
    # Otherwise a small set's resamples sometimes lack a class, and recall, kappa and MCC there
    # are undefined or conventionally 0, which drags a perfect grader's interval down to 0.
    rng = np.random.default_rng(seed)
    pos, neg = c.tp + c.fn, c.tn + c.fp
    tps = rng.binomial(pos, c.tp / pos, size=resamples) if pos else np.zeros(resamples, dtype=int)
    fps = rng.binomial(neg, c.fp / neg, size=resamples) if neg else np.zeros(resamples, dtype=int)
    return [Confusion(int(tp), int(fp), neg - int(fp), pos - int(tp)) for tp, fp in zip(tps, fps, strict=True)]


def bootstrap_interval(
    metric: Callable[[Confusion], float | None], samples: Sequence[Confusion], confidence: float = 0.95
) -> tuple[float, float] | None:
    """Percentile interval of ``metric`` over bootstrap resamples of the confusion matrix."""
    values = [v for v in (metric(s) for s in samples) if v is not None]
    if not values:
        return None
    tail = (1.0 - confidence) / 2 * 100
    return percentile(values, tail), percentile(values, 100 - tail)


@dataclass(frozen=True)
class ClassificationReport:
    """Every metric of one set of predictions, with intervals; what experiments record per variant."""

    confusion: Confusion
    metrics: dict[str, Estimate]
    accuracy_wilson: tuple[float, float] | None
    resamples: int
    seed: int

    @property
    def n(self) -> int:
        return self.confusion.n

    def value(self, name: str) -> float | None:
        return self.metrics[name].value

    def to_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "confusion": self.confusion.to_dict(),
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "accuracy_wilson": list(self.accuracy_wilson) if self.accuracy_wilson else None,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "confidence": 0.95},
        }


def classify(
    labels: Sequence[bool], predictions: Sequence[bool], *, resamples: int = 1000, seed: int = 0
) -> ClassificationReport:
    """Metrics of ``predictions`` against ``labels`` with seeded 95% bootstrap intervals.

    The same seed and pairs give the same intervals, so reports are reproducible.
    """
    confusion = Confusion.from_pairs(labels, predictions)
    samples = _resamples(confusion, resamples, seed) if confusion.n else []
    metrics = {}
    for name, fn in METRICS.items():
        interval = bootstrap_interval(fn, samples)
        metrics[name] = Estimate(fn(confusion), *(interval or (None, None)))
    w = wilson(confusion.tp + confusion.tn, confusion.n) if confusion.n else None
    return ClassificationReport(confusion, metrics, (w.ci_low, w.ci_high) if w else None, resamples, seed)
