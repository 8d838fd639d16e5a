"""Calibration and dev metrics of a trained reader-critic.

On dev rows never trained on (HaluEval rows 1–2000, fitz-gov's dev part), every score gets a
Platt scaling (``p = sigmoid(a * raw + b)``, fitted by maximum likelihood), and each decision a
threshold, by what its mistakes cost:

- ``reader`` and ``support`` guard ``answered``: the lowest calibrated probability at which at
  most ``max_wrong`` (5 %) of what passes is wrong;
- ``relevance`` and ``usefulness`` decide what is read and what is retried: a threshold that
  keeps ``keep`` (95 %) of the positives, since a wrong rejection there costs an abstention or a
  rewrite while the reader and the support check still stand behind a wrong acceptance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize

from eval.metrics import contains_reference, exact_match, token_f1
from eval.training.examples import CriticExample, ReaderExample
from selfrag.reading.artifact import Calibration
from selfrag.reading.judge import Judge
from selfrag.reading.network import CRITIC_TASKS

__all__ = ["auc", "calibrate", "fit_platt", "threshold_for"]


def fit_platt(raw: Sequence[float], labels: Sequence[int]) -> Calibration:
    """Platt scaling ``sigmoid(a * raw + b)`` by maximum likelihood, with ``a >= 0``: a higher
    score never means a lower probability. A score that ranks backwards on these labels (or not
    at all) gets ``a = 0`` and says the base rate, the honest answer when it does not rank."""
    x = np.clip(np.asarray(raw, dtype=float), -60, 60)
    y = np.asarray(labels, dtype=float)
    if len(set(labels)) < 2:
        return Calibration()

    def nll(params: np.ndarray) -> float:
        z = params[0] * x + params[1]
        return float(np.mean(np.logaddexp(0.0, z) - y * z))

    found = minimize(nll, np.array([1.0, 0.0]), method="L-BFGS-B", bounds=[(0.0, None), (None, None)])
    return Calibration(a=float(found.x[0]), b=float(found.x[1]))


def _sigmoid(c: Calibration, raw: Sequence[float]) -> np.ndarray:
    z = np.clip(c.a * np.clip(np.asarray(raw, dtype=float), -60, 60) + c.b, -50, 50)
    out: np.ndarray = 1.0 / (1.0 + np.exp(-z))
    return out


def auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    from scipy.stats import rankdata

    s, y = np.asarray(scores), np.asarray(labels)
    pos, neg = int(y.sum()), int(len(y) - y.sum())
    if pos == 0 or neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def threshold_for(probs: Sequence[float], right: Sequence[int], max_wrong: float) -> float:
    """The lowest probability t such that, among items with p >= t, at most ``max_wrong`` are wrong."""
    order = sorted(zip(probs, right, strict=True), key=lambda x: -x[0])
    best = 1.0
    wrong = 0
    for n, (p, ok) in enumerate(order, 1):
        wrong += 1 - ok
        if wrong / n <= max_wrong:
            best = p
    return float(best)


def threshold_keeping(probs: Sequence[float], labels: Sequence[int], keep: float) -> float:
    """The highest probability t such that at least ``keep`` of the positives have p >= t."""
    positives = sorted((p for p, y in zip(probs, labels, strict=True) if y), reverse=True)
    if not positives:
        return 0.5
    index = min(len(positives) - 1, max(0, int(math.ceil(keep * len(positives))) - 1))
    return float(positives[index])


def risk_coverage(probs: Sequence[float], right: Sequence[int], total: int) -> list[dict[str, float]]:
    """Coverage (share of all questions answered) and risk (wrong among answered) per threshold."""
    out = []
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        kept = [ok for p, ok in zip(probs, right, strict=True) if p >= t]
        out.append({"threshold": t, "coverage": round(len(kept) / max(1, total), 4),
                    "risk": round(1 - sum(kept) / len(kept), 4) if kept else 0.0})
    return out


def _reader_right(ex: ReaderExample, kind: str, answer: str) -> int:
    if ex.kind == "none":
        return 0
    if ex.kind in ("yes", "no"):
        return int(kind == ex.kind)
    reference = ex.passage[ex.start : ex.end]
    return int(kind == "span" and (token_f1(answer, reference) >= 0.5 or contains_reference(answer, reference)))


def reader_scores(judge: Judge, reader: Sequence[ReaderExample]) -> dict[str, Any]:
    """Span F1 / exact match, yes/no accuracy and right-or-abstained rate on ``reader`` (no
    calibration fitted)."""
    f1s, ems, nones, yes_no = [], [], [], []
    for ex in reader:
        r = judge.read(ex.question, [ex.passage])
        if ex.kind == "span":
            ref = ex.passage[ex.start : ex.end]
            f1s.append(token_f1(r.answer, ref) if r.kind == "span" else 0.0)
            ems.append(float(r.kind == "span" and exact_match(r.answer, ref)))
        elif ex.kind == "none":
            nones.append(float(r.kind == "none" or r.probability < judge.threshold("reader")))
        else:
            yes_no.append(float(r.kind == ex.kind))
    return {"examples": len(reader), "span_examples": len(f1s),
            "yes_no_examples": len(yes_no), "yes_no_accuracy": round(float(np.mean(yes_no)), 4) if yes_no else None,
            "span_f1": round(float(np.mean(f1s)), 4) if f1s else None,
            "span_em": round(float(np.mean(ems)), 4) if ems else None,
            "unanswerable_held_back": round(float(np.mean(nones)), 4) if nones else None}


def critic_scores(judge: Judge, examples: Sequence[CriticExample], cal: dict[str, Calibration],
                  thresholds: dict[str, float]) -> dict[str, Any]:
    """Per task on ``examples`` (reported apart, never calibrated on): AUC, and the share of
    positives kept and negatives passed at the task's threshold."""
    out: dict[str, Any] = {}
    for task in CRITIC_TASKS:
        mine = [e for e in examples if e.task == task]
        if not mine or task not in cal:
            continue
        raw = judge.raw_scores(task, [e.first for e in mine], [e.second for e in mine])  # type: ignore[arg-type]
        labels = [e.label for e in mine]
        p, y = _sigmoid(cal[task], raw), np.asarray(labels)
        at = p >= thresholds[task]
        out[task] = {"examples": len(mine), "positives": int(y.sum()), "auc": round(auc(p.tolist(), labels), 4),
                     "positives_kept": round(float(at[y == 1].mean()), 4) if (y == 1).any() else None,
                     "negatives_passed": round(float(at[y == 0].mean()), 4) if (y == 0).any() else None}
    return out


YES_NO_MIN_EXAMPLES = 40
"""Fewer yes/no dev examples than this: no calibration of their own (too few to fit two numbers)."""


def calibrate(judge: Judge, reader: Sequence[ReaderExample], critic: Sequence[CriticExample], *,
              max_wrong: float = 0.05, keep: float = 0.95, relevance_keep: float = 0.98,
              yes_no: Sequence[ReaderExample] = ()) -> tuple[dict[str, Calibration], dict[str, float], dict[str, Any]]:
    """Platt scalings, thresholds and dev metrics.

    Thresholds: support at most ``max_wrong`` of negatives passed; usefulness keeps ``keep`` of
    positives; relevance keeps ``relevance_keep``. Grading is the recall stage: a relevant
    document dropped there loses the answer (the run abstains), while an irrelevant one kept
    costs a read that the reader and the support check judge after it. At 0.95, v4's sharper
    relevance scores set the bar at 0.48, and end to end on HaluEval dev rows 1–1000 answerable
    questions ended "no relevant document" 44 times where v2's had 29.

    ``yes_no``: yes/no dev examples (with the gold passage) to calibrate yes/no answers apart
    (``reader_yes_no``): the reader's yes/no raw score ranks them poorly, so their probability
    must say how often they are right, not borrow the spans' scale.
    """
    cal: dict[str, Calibration] = {}
    thresholds: dict[str, float] = {}
    metrics: dict[str, Any] = {}
    raws, rights, f1s, ems, kinds_ok = [], [], [], [], []
    for ex in reader:
        r = judge.read(ex.question, [ex.passage])
        ok = _reader_right(ex, r.kind, r.answer)
        raws.append(r.raw if np.isfinite(r.raw) else -60.0)
        rights.append(ok)
        if ex.kind == "span":
            ref = ex.passage[ex.start : ex.end]
            f1s.append(token_f1(r.answer, ref))
            ems.append(float(exact_match(r.answer, ref)))
        if ex.kind in ("yes", "no"):
            kinds_ok.append(float(r.kind == ex.kind))
    cal["reader"] = fit_platt(raws, rights)
    probs = _sigmoid(cal["reader"], raws).tolist()
    thresholds["reader"] = threshold_for(probs, rights, max_wrong)
    answerable = [i for i, ex in enumerate(reader) if ex.kind != "none"]
    metrics["reader"] = {
        "examples": len(reader), "span_examples": len(f1s),
        "span_f1_gold_passage": round(float(np.mean(f1s)), 4) if f1s else None,
        "span_em_gold_passage": round(float(np.mean(ems)), 4) if ems else None,
        "yes_no_accuracy": round(float(np.mean(kinds_ok)), 4) if kinds_ok else None, "yes_no_examples": len(kinds_ok),
        "auc_right": round(auc(probs, rights), 4),
        "threshold": round(thresholds["reader"], 4),
        "answerable_right_at_threshold": round(sum(rights[i] for i in answerable if probs[i] >= thresholds["reader"])
                                               / max(1, len(answerable)), 4),
        "risk_coverage": risk_coverage(probs, rights, len(reader)),
    }
    if len(yes_no) >= YES_NO_MIN_EXAMPLES:
        yn_raw, yn_right = [], []
        for ex in yes_no:
            r = judge.read(ex.question, [ex.passage])
            if r.kind in ("yes", "no"):  # what the calibration is applied to: yes/no readings
                yn_raw.append(r.raw if np.isfinite(r.raw) else -60.0)
                yn_right.append(int(r.kind == ex.kind))
        if len(yn_raw) >= YES_NO_MIN_EXAMPLES and 0 < sum(yn_right) < len(yn_right):
            cal["reader_yes_no"] = fit_platt(yn_raw, yn_right)
            p_yn = _sigmoid(cal["reader_yes_no"], yn_raw)
            metrics["reader_yes_no"] = {
                "examples": len(yes_no), "yes_no_readings": len(yn_raw), "accuracy": round(float(np.mean(yn_right)), 4),
                "auc_right": round(auc(p_yn.tolist(), yn_right), 4),
                "max_probability": round(float(p_yn.max()), 4),
                "passing_reader_threshold": int((p_yn >= thresholds["reader"]).sum()),
            }
    for task in CRITIC_TASKS:
        mine = [e for e in critic if e.task == task]
        if not mine:
            continue
        raw = judge.raw_scores(task, [e.first for e in mine], [e.second for e in mine])  # type: ignore[arg-type]
        labels = [e.label for e in mine]
        cal[task] = fit_platt(raw, labels)
        p = _sigmoid(cal[task], raw)
        pred = (p >= 0.5).astype(int)
        y = np.asarray(labels)
        tpr = float((pred[y == 1] == 1).mean()) if (y == 1).any() else float("nan")
        tnr = float((pred[y == 0] == 0).mean()) if (y == 0).any() else float("nan")
        if task == "support":
            thresholds[task] = threshold_for(p.tolist(), labels, max_wrong)
        else:
            thresholds[task] = threshold_keeping(p.tolist(), labels, relevance_keep if task == "relevance" else keep)
        at = p >= thresholds[task]
        metrics[task] = {"examples": len(mine), "positives": int(y.sum()), "auc": round(auc(p.tolist(), labels), 4),
                         "balanced_accuracy_at_0.5": round((tpr + tnr) / 2, 4),
                         "threshold": round(thresholds[task], 4),
                         "positives_kept": round(float(at[y == 1].mean()), 4) if (y == 1).any() else None,
                         "negatives_passed": round(float(at[y == 0].mean()), 4) if (y == 0).any() else None}
    return cal, thresholds, metrics
