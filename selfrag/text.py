"""Content terms: the set of words two texts are compared by (graders' signals, rewriter, condenser).

The language layer's ``terms`` (the lexical index's own), stopped also by determiners and words
about the asking, as a set: "revenues" and "revenue", "directed" and "direct" meet here exactly
as in the self-query and in lexical retrieval.
"""

from __future__ import annotations

import re

from selfrag.lang import DETERMINERS, FUNCTION_WORDS, TASK_WORDS, terms

__all__ = ["NUMBER", "content_terms"]

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number as written, decimals and thousands separators included."""
_STOP = FUNCTION_WORDS | DETERMINERS | TASK_WORDS


def content_terms(text: str) -> set[str]:
    """Normalised, lightly stemmed content words and numbers (thousands separators removed)."""
    return set(terms(text, _STOP))
