"""The words lexical retrieval matches on: the engine's own folding, so BM25 and the self-query agree.

A question and a chunk are both reduced to content terms the way ``selfrag.query`` compares words
(case and accents folded, simplemma's lemma, then its deliberately light plural stem), so
"revenues" meets "revenue" and "directed" meets "direct" in the lexical index exactly as they do
in the self-query. Numbers keep their digits with thousands separators removed ("1,000" → "1000"),
so a figure written either way matches. Repeats are kept: BM25 counts term frequency.
"""

from __future__ import annotations

from selfrag.lang import FUNCTION_WORDS, terms

__all__ = ["STOP_WORDS", "TERMS_VERSION", "lexical_terms"]

TERMS_VERSION = "1"
"""Changes whenever ``lexical_terms`` would give other terms: a stored index of another version is rebuilt."""

STOP_WORDS = FUNCTION_WORDS
"""Function words only: a content word ("name", "top", "type") may be exactly what a chunk is found by."""


def lexical_terms(text: str) -> list[str]:
    """The content terms of ``text`` in order, repeats kept.

    >>> lexical_terms("The Directors' revenues grew to 1,200 dollars")
    ['director', 'revenue', 'rise', '1200', 'dollar']
    """
    return terms(text, STOP_WORDS)

