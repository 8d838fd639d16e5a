"""How the self-query matches a user's words to attribute terms (the words themselves are
read by the language layer, ``selfrag.lang``)."""

from __future__ import annotations

from selfrag.lang import QUERY_STOP, Token

__all__ = ["plural", "term_match"]


def plural(tok: Token) -> bool:
    """A plural noun: an inflected content word ending in "s" ("buses", "watercolours", "jobs")."""
    return tok.norm.isalpha() and tok.norm not in QUERY_STOP and len(tok.norm) > 3 and tok.norm.endswith("s") and tok.lemma != tok.norm


_PERSON_ENDINGS = ("person", "people", "woman", "women", "man", "men")


def _person_stem(word: str) -> str | None:
    """The stem of a noun for a person made with a person's word ("sales" of salesman and
    salesperson, "chair" of chairwoman); None for any other word."""
    return next((word[:-len(e)] for e in _PERSON_ENDINGS if word.endswith(e) and len(word) - len(e) >= 4), None)


def term_match(word_forms: frozenset[str], terms: frozenset[str]) -> bool:
    """A word names an attribute term: same form, the same person in another person's word
    ("salesman" → salesperson), or one an abbreviation of the other ("bath" → bathrooms); not a
    person's noun for the thing it is made from ("salesman" is no sale)."""
    if word_forms & terms:
        return True
    for w in word_forms:
        if len(w) < 3 or w in QUERY_STOP:
            continue
        for t in terms:
            if len(t) < 3:
                continue
            if (stem := _person_stem(w)) is not None and stem == _person_stem(t):
                return True
            short, long_ = (w, t) if len(w) <= len(t) else (t, w)
            if long_.startswith(short) and (len(short) >= 4 or (len(short) == 3 and len(long_) >= 6)) \
                    and _person_stem(long_) is None:
                return True
    return False
