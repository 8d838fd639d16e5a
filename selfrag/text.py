"""Content terms: the one normaliser for comparing texts by their words.

Lowercase word tokens and numbers (thousands separators removed), a small English stop list,
and the self-query's own lemma-then-light-stem, so "revenues" and "revenue", "directed" and
"direct" meet in the graders' signals, the rewriter, the condenser and the self-query alike.
"""

from __future__ import annotations

import re

from selfrag.query._text import lemma, stem

__all__ = ["NUMBER", "content_terms"]

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
