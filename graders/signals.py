"""Deterministic signals in [0, 1], computed without an LLM.

They back up a small model: a grader can combine its LLM verdict with a signal (see
``graders.base.Combine``), and the tuning experiments can show whether the combination beats
each part. Tokenisation is deliberately simple and language-agnostic-ish: lowercase word tokens,
a light plural/suffix strip, a small English stop list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selfrag.query._text import lemma, stem

__all__ = ["NUMBER", "content_terms", "lexical_support", "term_overlap"]

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_STOP = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "about", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there", "here", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "do", "does", "did", "done", "has", "have", "had", "having", "not", "no", "nor", "so", "than", "too", "very", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "i", "you", "he", "she", "we", "they", "me", "him", "her", "us", "them", "my", "your", "his", "our", "their", "ours", "yours", "any", "some", "all", "each", "every", "more", "most", "other", "such", "only", "own", "same", "also", "just", "than", "then", "once", "document", "documents", "answer", "question", "according", "based"]
)


def _stem(word: str) -> str:
    # The query side's normaliser (simplemma lemma, then its light plural stem), so "revenues"
    # and "revenue", "directed" and "direct" meet here exactly as they do in the self-query.
    if not word.isalpha() or len(word) <= 3:
        return word
    return stem(lemma(word))


def content_terms(text: str) -> set[str]:
    """Lowercased, lightly stemmed content words and numbers (thousands separators removed)."""
    terms = set()
    for tok in _WORD.findall(text.lower()):
        tok = tok.replace(",", "") if NUMBER.fullmatch(tok) else tok
        if tok in _STOP or (len(tok) < 2 and not tok.isdigit()):
            continue
        terms.add(_stem(tok))
    return terms


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
