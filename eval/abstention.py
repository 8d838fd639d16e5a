"""Abstention quality: did the system hold back exactly when the question cannot be answered?

- A case **abstained** when its outcome is one of ``ABSTAINED`` (the engine said it found nothing,
  made no progress, ran out of budget, or asked back). ``ungrounded`` and ``unverified`` answers
  are shown, flagged: they count as answers here, and as *flagged* in the report.
- A question is **unanswerable** when its row says ``answerable: false`` or its reference is one
  of ``UNANSWERABLE`` ("unanswerable", "no answer"…); answerable when it has any other
  reference; unknown without one (then the case is left out).
- ``abstention_ok`` per case: abstained on an unanswerable question, or answered an answerable one.
- The **risk-coverage curve** ranks the cases that gave an answer by how much the system
  trusts it (outcome ``answered`` before flagged ones, then confidence) and, for each cut,
  gives coverage (answers kept / all scored cases) and risk (wrong among those kept). Ties
  are one point: a system that reports no confidence has one point per outcome. ``aurc`` is
  the area under it (lower is better), averaged over its points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.metrics import normalize_answer

__all__ = ["ABSTAINED", "FLAGGED", "UNANSWERABLE", "abstention_fields", "is_answerable", "risk_coverage"]

ABSTAINED = frozenset({"abstained", "no_progress", "budget_exhausted", "needs_clarification"})
FLAGGED = frozenset({"ungrounded", "unverified"})
UNANSWERABLE = frozenset({"unanswerable", "no answer", "not answerable", "cannot be answered", "cannot answer",
                          "n a", "none", "unknown", "i dont know", "insufficient information"})
_TRUST = {"answered": 0, "unverified": 1, "ungrounded": 2}


def is_answerable(reference: str | None, flag: bool | None = None) -> bool | None:
    if flag is not None:
        return flag
    if reference is None or not reference.strip():
        return None
    return normalize_answer(reference) not in UNANSWERABLE


def abstention_fields(outcome: str | None, reference: str | None, flag: bool | None = None) -> dict[str, float | None]:
    """``abstained`` (0/1) and ``abstention_ok`` (0/1, None when answerability is unknown)."""
    if outcome is None:
        return {"abstained": None, "abstention_ok": None}
    abstained = outcome in ABSTAINED
    answerable = is_answerable(reference, flag)
    ok = None if answerable is None else float(abstained != answerable)
    return {"abstained": float(abstained), "abstention_ok": ok}


def risk_coverage(records: Sequence[Mapping[str, Any]], correct: str) -> dict[str, Any] | None:
    """``{"points": [[coverage, risk], ...], "aurc": float, "correct": field}``; None with nothing to score.

    Args:
        correct: the 0/1 per-case field that says an answer is right (``judged_correct`` or ``answer_correct``).
    """
    scored = [r for r in records if not r.get("error") and r.get(correct) is not None and r.get("outcome") is not None]
    if not scored:
        return None
    answers = [r for r in scored if r["outcome"] not in ABSTAINED]

    def trust(r: Mapping[str, Any]) -> tuple[int, float]:
        conf = r.get("confidence")
        return (_TRUST.get(str(r["outcome"]), 3), -float(conf) if isinstance(conf, (int, float)) else 0.0)

    answers.sort(key=trust)
    points: list[list[float]] = []
    wrong = 0
    for k, row in enumerate(answers, start=1):
        wrong += 1 - int(float(row[correct]) >= 0.5)
        if k == len(answers) or trust(answers[k]) != trust(row):
            points.append([round(k / len(scored), 4), round(wrong / k, 4)])
    aurc = round(sum(r for _, r in points) / len(points), 4) if points else None
    return {"points": points, "aurc": aurc, "correct": correct, "n": len(scored)}
