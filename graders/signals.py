"""Deterministic signals in [0, 1], computed without an LLM.

They back up a small model: a grader can combine its LLM verdict with a signal (see
``graders.base.Combine``), and the tuning experiments can show whether the combination beats
each part. Terms come from ``selfrag.text.content_terms``, the one text normaliser the query
side uses too.
"""

from __future__ import annotations

from collections.abc import Iterable

from selfrag.text import content_terms

__all__ = ["lexical_support", "term_overlap"]

def lexical_support(answer: str, documents: Iterable[str]) -> float:
    """Share of the answer's content terms found in the documents; numbers weigh double, and the
    result is scaled by the share of the answer's numbers that the documents contain.

    A hallucinated figure is the commonest unsupported claim, hence the extra weight.
    Returns 1.0 for an answer with no content terms (nothing to contradict).
    """
    answer_terms = content_terms(answer)
    if not answer_terms:
        return 1.0
    doc_terms: set[str] = set()
    for d in documents:
        doc_terms |= content_terms(d)
    total = supported = 0.0
    numbers = numbers_ok = 0
    for t in answer_terms:
        is_number = t[0].isdigit()
        w = 2.0 if is_number else 1.0
        total += w
        numbers += is_number
        if t in doc_terms:
            supported += w
            numbers_ok += is_number
    score = supported / total
    # Every unsupported figure scales the score down: one invented number out of two halves it.
    return score * (numbers_ok / numbers) if numbers else score


def term_overlap(a: str, b: str) -> float:
    """Share of ``a``'s content terms present in ``b`` (0 when ``a`` has none)."""
    ta = content_terms(a)
    if not ta:
        return 0.0
    return len(ta & content_terms(b)) / len(ta)
