"""Is a search text still about the question? The check every model-written query text passes.

A model's structured query, a rewrite and a condensed follow-up all replace the user's words
with the model's. A small model sometimes returns something else entirely ("The Magic School
Slamdabra" for "Which movie is about toys that come alive?") or a template artefact
(``<question>``, ``{query}``, an empty string). Such a text is never used: the caller falls back
to text built from the question itself.

A text is kept when it is not a placeholder and it shares enough with the reference (the
question, or the question plus the thread's last question for a follow-up): enough content
words, or, when the collection's embedding model is given, enough cosine similarity. Rewording
is fine; changing the subject is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.embeddings import Embeddings

from selfrag.lang import QUERY_STOP, forms, tokenize
from selfrag.query._similar import Similarity

__all__ = ["MIN_OVERLAP", "MIN_SIMILARITY", "TextCheck", "check_text", "is_placeholder"]

MIN_OVERLAP = 0.34
"""Least share of the text's content words that must appear (in some form) in the reference."""
MIN_SIMILARITY = 0.45
"""Least cosine similarity to the reference, under the collection's embedding model, when words differ."""

_TEMPLATE = re.compile(
    r"<\s*/?\s*[a-z_ ]{1,30}\s*>|\{\{?\s*[a-z_ ]{0,30}\s*\}?\}|\[\s*(?:query|question|text|input|search)[a-z_ ]*\s*\]|\$\{\w*\}",
    re.IGNORECASE,
)
_BARE = re.compile(
    r"^\W*(?:n/?a|none|null|nil|undefined|query|question|the question|search|search query|text|input|empty|"
    r"standalone question|rewritten query|better search query|your question|same|unchanged)\W*$",
    re.IGNORECASE,
)


def is_placeholder(text: str) -> bool:
    """Empty, a template artefact (``<question>``, ``{query}``), or a bare label ("N/A", "query")."""
    stripped = text.strip().strip("\"'`")
    if not stripped or not any(ch.isalnum() for ch in stripped):
        return True
    if _BARE.match(stripped):
        return True
    return bool(_TEMPLATE.search(stripped))


@dataclass(frozen=True)
class TextCheck:
    """The verdict on one candidate text."""

    ok: bool
    reason: str
    overlap: float = 0.0
    similarity: float | None = None


def _content(text: str) -> list[frozenset[str]]:
    return [forms(t.norm) for t in tokenize(text) if t.norm not in QUERY_STOP and (len(t.norm) > 1 or t.norm.isdigit())]


def check_text(
    text: str,
    reference: str,
    *,
    embeddings: Embeddings | None = None,
    min_overlap: float = MIN_OVERLAP,
    min_similarity: float = MIN_SIMILARITY,
) -> TextCheck:
    """Whether ``text`` may stand in for ``reference`` as a search text (see the module docstring)."""
    if is_placeholder(text):
        return TextCheck(False, f"{text.strip()[:40]!r} is empty or a placeholder")
    mine = _content(text)
    theirs: frozenset[str] = frozenset().union(*_content(reference)) if reference.strip() else frozenset()
    if not mine:
        return TextCheck(True, "no content words to compare", 1.0)
    overlap = sum(1 for f in mine if f & theirs) / len(mine)
    if overlap >= min_overlap:
        return TextCheck(True, f"shares {overlap:.0%} of its words with the question", overlap)
    if embeddings is not None:
        similarity = Similarity(embeddings).pair(text, reference)
        if similarity >= min_similarity:
            return TextCheck(True, f"similar in meaning to the question ({similarity:.2f})", overlap, similarity)
        return TextCheck(False, f"shares {overlap:.0%} of its words and {similarity:.2f} similarity with the question",
                         overlap, similarity)  # fmt: skip
    return TextCheck(False, f"shares only {overlap:.0%} of its words with the question", overlap)
