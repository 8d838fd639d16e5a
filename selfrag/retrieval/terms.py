"""The words lexical retrieval matches on: the engine's own folding, so BM25 and the self-query agree.

A question and a chunk are both reduced to content terms the way ``selfrag.query`` compares words
(case and accents folded, simplemma's lemma, then its deliberately light plural stem), so
"revenues" meets "revenue" and "directed" meets "direct" in the lexical index exactly as they do
in the self-query. Numbers keep their digits with thousands separators removed ("1,000" → "1000"),
so a figure written either way matches. Repeats are kept: BM25 counts term frequency.
"""

from __future__ import annotations

import re

from selfrag.query._text import lemma, normalize, stem

__all__ = ["STOP_WORDS", "TERMS_VERSION", "lexical_terms"]

TERMS_VERSION = "1"
"""Changes whenever ``lexical_terms`` would give other terms: a stored index of another version is rebuilt."""

STOP_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "nor", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "about", "as", "than", "then", "so", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "done", "has", "have", "had", "having", "it", "its", "this", "that", "these", "those", "there", "here", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "i", "me", "my", "we", "our", "us", "you", "your", "he", "him", "his", "she", "her", "they", "them", "their", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "not", "no"]
)
"""Function words only: a content word ("name", "top", "type") may be exactly what a chunk is found by."""

_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[^\W\d_]+")


def _term(word: str) -> str:
    if not word.isalpha() or len(word) <= 3:
        return word
    return stem(lemma(word))


def lexical_terms(text: str) -> list[str]:
    """The content terms of ``text`` in order, repeats kept.

    >>> lexical_terms("The Directors' revenues grew to 1,200 dollars")
    ['director', 'revenue', 'rise', '1200', 'dollar']
    """
    # Accents and case go first (normalize keeps digits, dots and commas out of words: fold numbers
    # on the raw text instead, so "1,200" is one number and not "1" and "200").
    out: list[str] = []
    for match in _WORD.finditer(text):
        token = match.group()
        if _NUMBER.fullmatch(token):
            out.append(token.replace(",", ""))
            continue
        for word in normalize(token).split():
            term = _term(word) if word not in STOP_WORDS and len(word) > 1 else ""
            if term and term not in STOP_WORDS:  # "aren't" → "aren" → "be"
                out.append(term)
    return out
