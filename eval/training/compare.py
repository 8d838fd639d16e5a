"""``python -m eval.training.compare BEFORE AFTER``: did a rebuild reproduce an artifact?

Reads two artifact folders (``judge.json`` and ``metrics.json``, as ``python -m eval.training``
writes them), says whether the weights are the same bytes (their sha256), and lists every dev
metric and threshold of both with the difference. Exit status 0 when the weights are identical
or every rate is within noise; 1 otherwise.

*Within noise* is per rate: the larger of ``--tolerance`` (a floor, 0.02) and two standard errors
of that rate on the examples it was measured on (``sqrt(p(1-p)/n)``, ``p`` the two runs' mean, ``n``
read from the metric's own counts: ``span_examples`` for span scores, ``positives`` for positives
kept, the smaller class for AUC and balanced accuracy...). A yes/no accuracy over 20 examples has
a standard error near 0.11, so a flat 0.02 would call every retraining a failure on it, while a
support AUC over 2,000 pairs keeps the floor. Counts (``examples``, ``positives``) are data, not
results: they must be equal. Thresholds (and the highest yes/no probability) are shown but not
judged: each is chosen to hold a rate (positives kept, wrong among answered), and that rate is
judged; the end-to-end operating point ``make weights`` chose on dev (coverage and risk, from
``judge.json``) is judged like any rate. ``make weights`` keeps the committed artifact's two files
and runs this against the rebuilt one.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Difference", "compare", "main"]

COUNTS = ("examples", "positives", "span_examples", "yes_no_examples")
"""Metric names that count data rather than measure the model: they must be equal."""
SHOWN = ("threshold", "max_probability", "yes_no_readings", "passing_reader_threshold", "answered")
"""Metric names shown but not judged: operating points and the model's own counts, judged through
the rates they hold or feed."""
NOISE_SE = 2.0
"""A rate is within noise up to this many standard errors of its own sample (about 95 %)."""

Path_ = tuple[str, ...]


@dataclass(frozen=True)
class Difference:
    path: Path_
    before: float | None
    after: float | None
    sample: int | None = None
    """How many examples the rate was measured on (the two artifacts' mean: risk is over what
    each answered)."""

    @property
    def name(self) -> str:
        return ".".join(self.path)

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    def is_count(self) -> bool:
        return self.path[-1] in COUNTS

    def is_shown_only(self) -> bool:
        return self.path[0] == "thresholds" or self.path[-1] in SHOWN

    def tolerance(self, floor: float) -> float:
        """The largest difference within noise: ``floor``, or two standard errors if larger."""
        if self.before is None or self.after is None or not self.sample:
            return floor
        p = min(max((self.before + self.after) / 2, 0.0), 1.0)
        return max(floor, NOISE_SE * math.sqrt(p * (1 - p) / self.sample))


def _numbers(prefix: Path_, value: Any) -> dict[Path_, float]:
    """Every number under ``value`` by its path of keys; lists (risk–coverage curves) left out."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix: float(value)}
    if isinstance(value, Mapping):
        out: dict[Path_, float] = {}
        for key, item in value.items():
            out.update(_numbers((*prefix, str(key)), item))
        return out
    return {}


def _end_to_end(info: Mapping[str, Any]) -> dict[Path_, float]:
    """The dev operating point ``make weights`` chose: coverage over the cases, risk over the answered."""
    training = info.get("training", {})
    chosen = (training.get("reader_threshold") if isinstance(training, Mapping) else None) or {}
    if not isinstance(training, Mapping) or not isinstance(chosen, Mapping):
        raise ValueError("judge.json: training.reader_threshold is not a record")
    answered, coverage, risk = chosen.get("answered"), chosen.get("coverage"), chosen.get("risk")
    if not isinstance(answered, int) or not isinstance(coverage, int | float) or not isinstance(risk, int | float):
        return {}
    return {("end_to_end", "answered"): float(answered), ("end_to_end", "coverage"): float(coverage),
            ("end_to_end", "risk"): float(risk)}


def _read(folder: Path) -> tuple[str, dict[Path_, float]]:
    """The weights' sha256 and every number of the artifact in ``folder``.

    Raises:
        OSError: a file cannot be read.
        ValueError: a file is not JSON, or not the record ``python -m eval.training`` writes.
    """
    info = json.loads((folder / "judge.json").read_text())
    metrics = json.loads((folder / "metrics.json").read_text())
    if not isinstance(info, dict) or not isinstance(info.get("sha256"), str) or not isinstance(metrics, dict):
        raise ValueError("judge.json needs a sha256 and metrics.json must be a record")
    return info["sha256"], {**_numbers(("thresholds",), info.get("thresholds", {})), **_numbers((), metrics),
                                 **_end_to_end(info)}


def _sample(path: Path_, numbers: Mapping[Path_, float]) -> float | None:
    """How many examples the rate at ``path`` was measured on, from the counts beside it."""
    *prefix, leaf = path

    def count(key: str) -> float | None:
        return numbers.get((*prefix, key))

    examples, positives = count("examples"), count("positives")
    negatives = None if examples is None or positives is None else examples - positives
    if prefix == ["end_to_end"]:  # coverage over every case; risk over those answered
        answered, coverage = count("answered"), count("coverage")
        if leaf == "coverage":
            return answered / coverage if answered and coverage else None
        return answered
    if leaf.startswith("span_"):
        return count("span_examples")
    if leaf.startswith("yes_no_"):
        return count("yes_no_examples")
    if leaf == "accuracy" and count("yes_no_readings") is not None:
        return count("yes_no_readings")  # the accuracy of what the reader read as yes or no
    if leaf == "positives_kept":
        return positives
    if leaf == "negatives_passed":
        return negatives
    if leaf.startswith(("auc", "balanced_accuracy")) and positives is not None and negatives is not None:
        return min(positives, negatives)
    return examples


def compare(before: Path, after: Path) -> tuple[bool, list[Difference]]:
    """Whether the weights are identical, and every metric of either artifact, by name, with the
    sample each rate was measured on."""
    sha_before, a = _read(before)
    sha_after, b = _read(after)
    rows = []
    for path in sorted(set(a) | set(b)):
        # An artifact older than a count (v6 has no reader.yes_no_examples) takes the other's:
        # the data counts themselves are compared apart.
        known = [n for n in (_sample(path, a), _sample(path, b)) if n is not None]
        sample = round(sum(known) / len(known)) if known and sum(known) > 0 else None
        rows.append(Difference(path, a.get(path), b.get(path), sample))
    return sha_before == sha_after, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.training.compare", description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="the artifact folder to reproduce (e.g. the committed one)")
    ap.add_argument("after", type=Path, help="the rebuilt artifact folder")
    ap.add_argument("--tolerance", type=float, default=0.02,
                    help="the least difference of a rate allowed as noise, however large its sample")
    args = ap.parse_args(argv)
    for folder in (args.before, args.after):
        try:
            _read(folder)
        except (OSError, KeyError, ValueError):
            print(f"error: {folder} holds no readable judge.json and metrics.json", file=sys.stderr)
            return 2
    identical, rows = compare(args.before, args.after)
    print(f"weights: {'identical (same sha256)' if identical else 'different'}")
    off = []
    for row in rows:
        delta = row.delta
        if delta is None and (row.is_count() or row.is_shown_only()):
            mark = ""  # a count or operating point newer code reports: the rates still decide
        elif delta is None:
            mark = "missing"
        elif row.is_count():
            mark = "" if delta == 0 else "data differ"
        elif row.is_shown_only():
            mark = ""
        else:
            allowed = row.tolerance(args.tolerance)
            mark = "" if abs(delta) <= allowed + 1e-12 else f"beyond {allowed:.3f}"
        if mark:
            off.append(row)
        shown = "missing" if delta is None else f"{delta:+.4f}"
        noise = ("shown" if row.is_shown_only() else "" if row.is_count() or delta is None
                 else f"±{row.tolerance(args.tolerance):.3f}" + (f" (n={row.sample})" if row.sample else ""))
        print(f"{row.name:<55} {row.before!s:>10} {row.after!s:>10} {shown:>9} {noise:>16} {mark}")
    if identical or not off:
        print("reproduced" + ("" if identical else ": every rate within noise, the data the same"))
        return 0
    print(f"not reproduced: {len(off)} metric(s) off")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
