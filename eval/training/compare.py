"""``python -m eval.training.compare BEFORE AFTER``: did a rebuild reproduce an artifact?

Reads two artifact folders (``judge.json`` and ``metrics.json``, as ``python -m eval.training``
writes them), says whether the weights are the same bytes (their sha256), and lists every dev
metric and threshold of both with the difference. Exit status 0 when the weights are identical
or no rate differs by more than ``--tolerance``; 1 otherwise. Counts (``examples``, ``positives``)
are data, not results: they must be equal. ``make weights`` keeps the committed artifact's two
files and runs this against the rebuilt one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Difference", "compare", "main"]

COUNTS = ("examples", "positives", "span_examples", "yes_no_examples", "yes_no_readings", "passing_reader_threshold")
"""Metric names that count data rather than measure the model."""


@dataclass(frozen=True)
class Difference:
    name: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float | None:
        return None if self.before is None or self.after is None else self.after - self.before

    def is_count(self) -> bool:
        return self.name.rsplit(".", 1)[-1] in COUNTS


def _numbers(prefix: str, value: Any) -> dict[str, float]:
    """Every number under ``value`` by dotted name; lists (risk–coverage curves) left out."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {prefix: float(value)}
    if isinstance(value, Mapping):
        out: dict[str, float] = {}
        for key, item in value.items():
            out.update(_numbers(f"{prefix}.{key}" if prefix else str(key), item))
        return out
    return {}


def _read(folder: Path) -> tuple[str, dict[str, float]]:
    info = json.loads((folder / "judge.json").read_text())
    metrics = json.loads((folder / "metrics.json").read_text())
    return str(info["sha256"]), {**_numbers("thresholds", info.get("thresholds", {})), **_numbers("", metrics)}


def compare(before: Path, after: Path) -> tuple[bool, list[Difference]]:
    """Whether the weights are identical, and every metric of either artifact, by name."""
    sha_before, a = _read(before)
    sha_after, b = _read(after)
    return sha_before == sha_after, [Difference(n, a.get(n), b.get(n)) for n in sorted(set(a) | set(b))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.training.compare", description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path, help="the artifact folder to reproduce (e.g. the committed one)")
    ap.add_argument("after", type=Path, help="the rebuilt artifact folder")
    ap.add_argument("--tolerance", type=float, default=0.02, help="largest difference of a rate within noise")
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
        if delta is None:
            mark = "missing"
        elif row.is_count():
            mark = "" if delta == 0 else "data differ"
        else:
            mark = "" if abs(delta) <= args.tolerance else f"beyond {args.tolerance}"
        if mark:
            off.append(row)
        shown = "—" if delta is None else f"{delta:+.4f}"
        print(f"{row.name:<55} {row.before!s:>10} {row.after!s:>10} {shown:>9} {mark}")
    if identical or not off:
        print("reproduced" + ("" if identical else f": every metric within {args.tolerance}"))
        return 0
    print(f"not reproduced: {len(off)} metric(s) off")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
