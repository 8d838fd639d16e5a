"""Risk–coverage of the reader's confidence over ``selfrag eval run`` outputs, and the threshold it implies.

For each run (a folder with ``cases.jsonl``), the answers that passed the critic's checks
(outcome ``answered`` or ``unverified``) are sorted by the reader's calibrated confidence; at each
threshold t, *coverage* is the share of all cases answered with confidence >= t and *risk* the
share of those answers that are wrong (``answer_correct`` false). ``--choose`` prints the lowest
threshold whose risk is at most ``--max-risk`` on that run: choose on a dev run, report on test.
``--write-threshold DIR`` stores the threshold chosen on the (one) run as the reader's threshold
in the artifact ``DIR/judge.json`` (its weights, so its sha256, stay as they are), with the run
and the risk it was chosen at under ``training.reader_threshold``: the last step of ``make weights``.

    python bench/risk_coverage.py runs/halueval-dev --choose --out bench/results/judge/risk-coverage-dev.json --plot bench/results/judge/risk-coverage.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

CHECKED = ("answered", "unverified")


def load(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "cases.jsonl").read_text().splitlines() if line.strip()]


def curve(rows: list[dict[str, Any]]) -> list[dict[str, float]]:
    scored = [r for r in rows if r.get("answer_correct") is not None and not r.get("error")]
    total = len(scored)
    passed = sorted(((float(r["confidence"] or 0.0), float(r["answer_correct"])) for r in scored
                     if r.get("outcome") in CHECKED and r.get("confidence") is not None), reverse=True)
    points = []
    right = 0.0
    for n, (conf, ok) in enumerate(passed, 1):
        right += ok
        if n == len(passed) or passed[n][0] < conf:  # one point per distinct confidence
            points.append({"threshold": round(conf, 4), "coverage": round(n / max(1, total), 4),
                           "risk": round(1 - right / n, 4), "answered": n})
    return points


def choose(points: list[dict[str, float]], max_risk: float) -> dict[str, float] | None:
    ok = [p for p in points if p["risk"] <= max_risk]
    return min(ok, key=lambda p: p["threshold"]) if ok else None


def write_threshold(artifact: Path, chosen: dict[str, float], runs: list[Path], max_risk: float) -> None:
    path = artifact / "judge.json"
    info = json.loads(path.read_text())
    info["thresholds"]["reader"] = chosen["threshold"]
    datasets = [json.loads((run / "manifest.json").read_text()).get("dataset", {}) for run in runs]
    info.setdefault("training", {})["reader_threshold"] = {
        "chosen_on": [d.get("path", str(run)) for d, run in zip(datasets, runs, strict=True)],
        "cases_sha256": [d.get("cases_sha256") for d in datasets],
        "max_risk": max_risk, "coverage": chosen["coverage"], "risk": chosen["risk"], "answered": chosen["answered"],
    }
    path.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    print(f"{path}: reader threshold {chosen['threshold']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--max-risk", type=float, default=0.05)
    ap.add_argument("--choose", action="store_true")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--write-threshold", type=Path, metavar="ARTIFACT",
                    help="store the chosen threshold as the reader's in ARTIFACT/judge.json (one run, or --pool)")
    ap.add_argument("--pool", action="store_true",
                    help="one curve over the cases of every run (dev runs on different rows: a threshold chosen on "
                         "more cases is chosen less by luck)")
    args = ap.parse_args()
    if args.write_threshold and ((len(args.runs) != 1 and not args.pool) or not args.choose):
        ap.error("--write-threshold takes one run (or --pool) and --choose")
    report: dict[str, Any] = {}
    groups = {"+".join(r.name for r in args.runs): args.runs} if args.pool else {r.name: [r] for r in args.runs}
    for name, runs in groups.items():
        points = curve([row for run in runs for row in load(run)])
        report[name] = {"points": points}
        if args.choose:
            report[name]["chosen"] = choose(points, args.max_risk)
        for p in points[:: max(1, len(points) // 12)]:
            print(f"{name}: t={p['threshold']:.3f} coverage={p['coverage']:.3f} risk={p['risk']:.3f}")
        if args.choose:
            print(f"{name}: lowest threshold with risk <= {args.max_risk}: {report[name]['chosen']}")
    if args.write_threshold:
        chosen = report[next(iter(groups))]["chosen"]
        if chosen is None:
            print(f"no threshold keeps risk <= {args.max_risk}: {args.write_threshold} left as it was")
            return 1
        write_threshold(args.write_threshold, chosen, args.runs, args.max_risk)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        for name, data in report.items():
            ax.plot([p["coverage"] for p in data["points"]], [p["risk"] for p in data["points"]], label=name)
        ax.axhline(args.max_risk, linestyle="--", color="grey")
        ax.set_xlabel("coverage (answered / all cases)")
        ax.set_ylabel("risk (wrong / answered)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
