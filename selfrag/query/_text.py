"""How the self-query matches a user's words to attribute terms (the words themselves are
read by the language layer, ``selfrag.lang``)."""

from __future__ import annotations

from selfrag.lang import QUERY_STOP, Token

__all__ = ["plural", "term_match"]


def plural(tok: Token) -> bool:
    """A plural noun: an inflected content word ending in "s" ("buses", "watercolours", "jobs")."""
    return tok.norm.isalpha() and tok.norm not in QUERY_STOP and len(tok.norm) > 3 and tok.norm.endswith("s") and tok.lemma != tok.norm


def term_match(word_forms: frozenset[str], terms: frozenset[str]) -> bool:
    """A word names an attribute term: same form, or one an abbreviation of the other ("bath" → bathrooms)."""
    if word_forms & terms:
        return True
    for w in word_forms:
        if len(w) < 3 or w in QUERY_STOP:
            continue
        for t in terms:
            if len(t) < 3:
                continue
            short, long_ = (w, t) if len(w) <= len(t) else (t, w)
            if long_.startswith(short) and (len(short) >= 4 or (len(short) == 3 and len(long_) >= 6)):
                return True
    return False
