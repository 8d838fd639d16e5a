"""Threshold sweeps: how a signal-using grader variant would score at other thresholds.

A variant that combines (or is) a deterministic signal has one free number, its threshold. The
sweep re-decides every case at evenly spaced thresholds over the observed score range, without
any new LLM call, and reports the metrics at each; the best point by balanced accuracy is where
the threshold should move. It is chosen on the same cases it is scored on, so it is optimistic:
tune on the dev split and confirm on test (``eval.experiments.choose_and_report``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from eval.classification import METRICS, Confusion

__all__ = ["Sweep", "SweepPoint", "best_point", "plot_sweep", "sweep", "threshold_grid"]

PLOTTED = ("balanced_accuracy", "precision", "recall", "f1")


class SweepPoint(NamedTuple):
    """The metrics (point values, no intervals: cheap at many thresholds) at one threshold."""

    threshold: float
    confusion: Confusion
    metrics: dict[str, float | None]

    def to_dict(self) -> dict[str, object]:
        return {"threshold": self.threshold, "confusion": self.confusion.to_dict(), **self.metrics}


@dataclass(frozen=True)
class Sweep:
    """A variant's sweep: every point, the best one, and the variant's own threshold."""

    points: list[SweepPoint]
    best: SweepPoint
    current: float
    metric: str = "balanced_accuracy"

    def to_dict(self) -> dict[str, object]:
        return {
            "metric": self.metric,
            "current_threshold": self.current,
            "best": self.best.to_dict(),
            "points": [p.to_dict() for p in self.points],
        }


def threshold_grid(scores: Sequence[float], steps: int = 21) -> list[float]:
    """``steps`` evenly spaced thresholds from the lowest to the highest observed score."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi == lo or steps < 2:
        return [round(lo, 6)]
    return [round(lo + (hi - lo) * i / (steps - 1), 6) for i in range(steps)]


def best_point(points: Sequence[SweepPoint], metric: str = "balanced_accuracy") -> SweepPoint:
    """Highest ``metric``, then highest MCC; remaining ties go to the lowest threshold."""

    def key(p: SweepPoint) -> tuple[float, float]:
        m, c = p.metrics.get(metric), p.metrics.get("mcc")
        return (-math.inf if m is None else m, -math.inf if c is None else c)

    best = points[0]
    for p in points[1:]:
        if key(p) > key(best):
            best = p
    return best


def sweep(
    labels: Sequence[bool],
    scores: Sequence[float],
    predict: Callable[[float], Sequence[bool]],
    *,
    current: float,
    steps: int = 21,
    metric: str = "balanced_accuracy",
) -> Sweep | None:
    """Score ``predict(threshold)`` against ``labels`` over the grid of ``scores``; None without scores."""
    points = []
    for t in threshold_grid(scores, steps):
        c = Confusion.from_pairs(labels, predict(t))
        points.append(SweepPoint(t, c, {name: fn(c) for name, fn in METRICS.items()}))
    if not points:
        return None
    return Sweep(points, best_point(points, metric), current, metric)


def plot_sweep(s: Sweep, path: str | Path, title: str) -> Path:
    """Draw the sweep to a PNG; Agg canvas without pyplot, so it is headless and thread-safe."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.0), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = [p.threshold for p in s.points]
    # Metrics often tie (precision = recall = F1 at a threshold): distinct dashes and markers,
    # and lines drawn thinner on top, keep every one of them visible where they coincide.
    styles = [("-", "o", 3.0), ("--", "s", 2.4), (":", "^", 1.8), ("-.", "D", 1.4), ((0, (1, 1)), "v", 1.1)]
    for n, name in enumerate(PLOTTED):
        ys = [math.nan if (y := p.metrics[name]) is None else y for p in s.points]
        dash, marker, width = styles[n % len(styles)]
        ax.plot(xs, ys, linestyle=dash, marker=marker, markersize=4 - 0.4 * (n % len(styles)), linewidth=width,
                label=name.replace("_", " "), zorder=2 + n)
    ax.axvline(s.current, color="grey", linestyle="--", linewidth=1, label=f"current {s.current:g}")
    ax.axvline(s.best.threshold, color="black", linestyle=":", linewidth=1, label=f"best {s.best.threshold:g}")
    ax.set_xlabel("signal threshold")
    ax.set_ylabel("metric")
    ax.set_ylim(-0.04, 1.04)
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize="small")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png")
    return out
