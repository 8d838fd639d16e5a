"""``python -m eval.training.verified RUN --artifact DIR``: fit how the reader's probability and the
support verifier's make one (``selfrag.reading.artifact.Verified``), on an end-to-end dev run.

For every case of ``RUN/cases.jsonl`` (a ``selfrag eval run`` on dev rows) with a reference answer,
the artifact's reader reads the passages the run read (``contexts``) again and offers its
``--candidates`` best answers; the verifier scores each ("question answer" against its passage);
each is labelled right or wrong as the harness does (``eval.metrics.is_correct``). A logistic
regression on the two logits is fitted and written into ``DIR/judge.json`` (the weights, so their
sha256, do not change), with the run it was fitted on and its figures: AUC and the coverage at
which at most 5 % of the answers are wrong, for the reader alone and combined, on that run (a
cross-fitted estimate: five folds by case). The threshold of ``answered`` is then chosen on
*another* dev run with the combination in place (``bench/risk_coverage.py --write-threshold``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from eval.metrics import is_correct
from eval.training.calibrate import auc
from selfrag.reading.artifact import INFO_FILE, ArtifactInfo, Verified

__all__ = ["fit_combination", "main"]


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def fit_combination(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> tuple[float, float, float]:
    """Logistic regression of ``y`` on the two columns of ``x`` (reader logit, support logit)."""

    def nll(w: np.ndarray) -> float:
        z = x @ w[:2] + w[2]
        return float(np.mean(np.logaddexp(0.0, z) - y * z) + l2 * float(w[:2] @ w[:2]))

    found = minimize(nll, np.array([1.0, 0.0, 0.0]), method="L-BFGS-B")
    return float(found.x[0]), float(found.x[1]), float(found.x[2])


def coverage_at(scores: np.ndarray, right: np.ndarray, max_wrong: float) -> float:
    """The largest share of cases answered, best score first, with at most ``max_wrong`` wrong."""
    order = np.argsort(-scores, kind="stable")
    ok = right[order]
    wrong = np.cumsum(1 - ok) / np.arange(1, len(ok) + 1)
    within = np.nonzero(wrong <= max_wrong)[0]
    return float((within.max() + 1) / len(ok)) if len(within) else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.training.verified", description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path, help="a selfrag eval run folder (cases.jsonl) on dev rows")
    ap.add_argument("--artifact", type=Path, required=True, help="artifact folder with a support verifier")
    ap.add_argument("--candidates", type=int, default=1, help="the reader's best answers scored per question")
    ap.add_argument("--confidence", choices=("combined", "reader"), default="combined",
                    help="the probability the chosen answer carries: the combination's, or the reader's own "
                         "(the verifier then only chooses among the reader's answers)")
    ap.add_argument("--max-wrong", type=float, default=0.05)
    args = ap.parse_args(argv)

    from selfrag.reading.judge import load_judge

    judge = load_judge(args.artifact)
    if judge.support is None:
        ap.error(f"{args.artifact} names no support verifier")
    cases_path = args.run / "cases.jsonl"
    cases = [json.loads(line) for line in cases_path.read_text().splitlines() if line.strip()]
    per_case: list[list[tuple[float, float, int]]] = []
    for case in cases:
        passages, reference = case.get("contexts") or [], case.get("reference_answer")
        if not passages or not reference or case.get("error"):
            continue
        found = judge.candidates(case["question"], passages, args.candidates)
        if not found:
            continue
        support = judge.support.score("support", [f"{case['question']} {r.answer}" for r in found],
                                      [passages[r.passage] for r in found])
        per_case.append([(_logit(r.probability), _logit(s), int(is_correct(r.answer, r.answer, reference)))
                         for r, s in zip(found, support, strict=True)])
    n = len(per_case)
    fold = np.arange(n) % 5
    chosen_score, chosen_right, chosen_reader = np.zeros(n), np.zeros(n), np.zeros(n)
    for f in range(5):
        train = [c for c, k in zip(per_case, fold, strict=True) if k != f]
        rows = np.array([r for c in train for r in c], dtype=float)
        a, b, bias = fit_combination(rows[:, :2], rows[:, 2])
        for i in np.nonzero(fold == f)[0]:
            scores = [a * r + b * s + bias for r, s, _ in per_case[i]]
            j = int(np.argmax(scores))
            chosen_score[i], chosen_right[i], chosen_reader[i] = scores[j], per_case[i][j][2], per_case[i][j][0]
    reader_score = np.array([c[0][0] for c in per_case])
    reader_right = np.array([c[0][2] for c in per_case], dtype=float)
    rows = np.array([r for c in per_case for r in c], dtype=float)
    a, b, bias = fit_combination(rows[:, :2], rows[:, 2])
    figures: dict[str, Any] = {
        "cases": n, "candidates": args.candidates,
        "reader_alone": {"right": round(float(reader_right.mean()), 4),
                         "auc": round(auc(reader_score.tolist(), reader_right.astype(int).tolist()), 4),
                         f"coverage_at_{args.max_wrong}": round(coverage_at(reader_score, reader_right, args.max_wrong), 4)},
        "combined_cross_fitted": {"right": round(float(chosen_right.mean()), 4),
                                  "auc": round(auc(chosen_score.tolist(), chosen_right.astype(int).tolist()), 4),
                                  f"coverage_at_{args.max_wrong}": round(coverage_at(chosen_score, chosen_right, args.max_wrong), 4),
                                  f"coverage_at_{args.max_wrong}_by_reader_probability":
                                      round(coverage_at(chosen_reader, chosen_right, args.max_wrong), 4)},
    }
    info = ArtifactInfo.model_validate_json((args.artifact / INFO_FILE).read_text())
    verified = Verified(reader=round(a, 6), support=round(b, 6), bias=round(bias, 6), candidates=args.candidates,
                        confidence=args.confidence,
                        fitted_on={"run": str(args.run), "cases_sha256": hashlib.sha256(cases_path.read_bytes()).hexdigest(),
                                   "verifier": judge.support.version, "figures": figures})
    (args.artifact / INFO_FILE).write_text(json.dumps(info.model_copy(update={"verified": verified}).model_dump(mode="json"),
                                                      indent=2, sort_keys=True) + "\n")
    print(json.dumps({"verified": verified.model_dump(mode="json")}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
