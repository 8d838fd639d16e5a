"""What English words mean for a filter, independent of any collection (the lists are data:
``selfrag/lang/words.toml``, each entry with the phrase that justifies it).

Nothing here names a domain: these are the words people use to compare ("under", "at least"),
to negate ("aren't", "except"), to scale numbers ("150k", "a grand"), and the units they write
after numbers ("two hours", "500 m", "3 stars", "$"). Which attribute a unit or cue belongs to
is decided elsewhere (``_profile``), from the collection's declared schema alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast, get_args

from selfrag.lang import lemma, word_lists, word_map, word_set
from selfrag.lang.questions import AUXILIARIES
from selfrag.query.model import Comparator


def _comparators(name: str) -> dict[str, Comparator]:
    table = word_map(name)
    wrong = {w: c for w, c in table.items() if c not in get_args(Comparator)}
    if wrong:
        raise ValueError(f"words.toml [{name}]: not comparators: {wrong}")
    return cast(dict[str, Comparator], table)


__all__ = [
    "CUES",
    "DIMENSION_WORDS",
    "FLIP",
    "ITEM_WORDS",
    "LINKING_VERBS",
    "NEGATIONS",
    "POSTFIX",
]

CUES: dict[str, Comparator] = _comparators("cues")
"""A word or phrase written before a number, and the comparison it asks for."""

YEAR_ONLY_CUES = word_set("year_only_cues")
"""Cues that only make sense before a number when that number is a calendar year (or has a unit)."""

POSTFIX: dict[str, Comparator] = _comparators("postfix")
"""A phrase written after a number (and its unit) that turns it into a bound."""

FLIP: dict[Comparator, Comparator] = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt", "eq": "ne", "ne": "eq"}
"""The comparison a negated cue asks for: "not over 800" is ``lte 800``."""

NEGATIONS = word_set("negations")
"""Single words that negate what follows them (apostrophes already removed by the tokenizer)."""
NEGATION_PHRASES = tuple(sorted(word_set("negation_phrases")))
"""Phrases that negate what follows them."""


def verb_form(token_text: str, before: Sequence[str]) -> bool:
    """Whether a word between a negation and what it negates is the negated verb: an inflected form
    ("published", "patched": the lemma differs, not a plural in -s), or a bare lower-case word
    right after an auxiliary's negation ("did not end in 2023", "didn't start before 2022").
    ``before``: the lower-cased words before it, nearest last. The bare verb of a subject
    ("did Dana Okafor not write in 2023") is no auxiliary's: which the negation governs is not said."""
    word = token_text.casefold()
    if not word.isalpha():
        return False
    if not word.endswith("s") and lemma(word) != word:
        return True
    if not token_text.islower() or not before:
        return False
    negation = before[-1]
    return negation == "cannot" or (negation.endswith("nt") and negation in NEGATIONS) or (
        negation in ("not", "never") and len(before) > 1 and before[-2] in AUXILIARIES)


DIMENSION_WORDS: dict[str, frozenset[str]] = {
    dim: word_set(f"dimension_words.{dim}") for dim in word_lists()["dimension_words"] if dim != "about"
}
"""Words that point a number at an attribute of that kind ("paying over 150k" → a money attribute)."""

LINKING_VERBS = word_set("linking_verbs")
"""Verbs that say an item has the value written right after them ("affected Japan"); see words.toml."""

DISTINCT_WORDS = word_set("distinct_words")
"""Words right after "how many" that say "distinct" ("How many different towns …"); see words.toml."""

ITEM_WORDS = word_set("item_words")
"""Generic nouns for "the things in the collection" ("show me 5 options"); the schema adds its own."""
