"""Grading one case, and deciding a variant from a verdict shared with other variants.

The experiment runs each (model, prompt) once with ``combine=llm`` and fail-closed, then decides
every variant from that verdict and the signal. ``decide`` must therefore reproduce
``graders.base.StructuredGrader``'s combination and failure policy exactly; a test holds the two
together across every combine mode, verdict and policy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from langchain_core.runnables.config import ContextThreadPoolExecutor

from eval.datasets import GraderCase
from eval.variants import Variant
from graders import GRADERS, Combine, FailurePolicy, GradeResult, StructuredGrader
from selfrag.errors import GraderError

__all__ = ["Progress", "decide", "grade_all", "grade_case"]

Progress = Callable[[str, int, int], None]
"""Called as ``progress(group_label, done, total)`` after each graded case."""

def grade_case(grader: StructuredGrader, case: GraderCase) -> GradeResult:
    """Call ``grader`` on ``case``'s fields; ``meta.score`` is the case's retrieval similarity, if recorded."""
    return grader.grade_case(case.inputs())


def decide(variant: Variant, verdict: GradeResult | None, score: float | None) -> tuple[bool, str]:
    """A variant's decision from a shared LLM verdict and the signal; mirrors ``StructuredGrader``.

    ``verdict`` is the group's fail-closed, combine=llm result (None for a signal-only variant).

    Raises:
        GraderError: the LLM failed and the variant's policy is ``raise``.
    """
    t = variant.threshold
    if variant.combine is Combine.SIGNAL or verdict is None:
        if score is None:
            raise ValueError(f"variant {variant.name!r}: this grader has no signal")
        return score >= t, f"signal {score:.2f} {'>=' if score >= t else '<'} threshold {t:g}"
    if verdict.failed:
        if variant.policy is FailurePolicy.RAISE:
            raise GraderError(f"variant {variant.name!r}: grader failed after {verdict.attempts} attempts: {verdict.error}")
        ok = variant.policy is FailurePolicy.FAIL_OPEN
        return ok, f"grader failed; policy {variant.policy.value} decided {'pass' if ok else 'fail'}"
    llm_ok = verdict.llm_label == GRADERS[verdict.kind].positive
    if score is None or variant.combine is Combine.LLM:
        return llm_ok, verdict.reason
    sig_ok = score >= t
    ok = (llm_ok and sig_ok) if variant.combine is Combine.BOTH else (llm_ok or sig_ok)
    return ok, f"llm {verdict.llm_label}: {verdict.reason}; signal {score:.2f} {'>=' if sig_ok else '<'} {t:g}"


def grade_all(
    grader: StructuredGrader, cases: Sequence[GraderCase], concurrency: int, label: str, progress: Progress | None
) -> list[GradeResult]:
    """Grade every case, ``concurrency`` at a time; results keep the input order."""
    done, lock = 0, threading.Lock()

    def one(case: GraderCase) -> GradeResult:
        nonlocal done
        result = grade_case(grader, case)
        with lock:
            done += 1
            if progress is not None:
                progress(label, done, len(cases))
        return result

    if concurrency <= 1 or len(cases) == 1:
        return [one(c) for c in cases]
    # ContextThreadPoolExecutor carries the caller's callbacks (call counting, tracing) into workers.
    with ContextThreadPoolExecutor(max_workers=min(concurrency, len(cases))) as pool:
        return list(pool.map(one, cases))
