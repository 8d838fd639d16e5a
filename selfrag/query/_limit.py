"""A requested number of results: "show me 5", "top 3", "three dramas", "5 Italian salads".

A limit is a count of the collection's items, asked for: a number led by a word that asks for
results ("top", "show me") or followed by the items it counts ("5 recipes"). A number that
measures something ("3 bedrooms") was read by ``_numeric`` already and is not free here. A bound
("fewer than 50 places", "at least 3", "20 or more", "10+") is never a count, whether or not an
attribute took it: it says which items, not how many to show. A
number that labels one thing is no count either: it follows the noun it labels ("route 62",
"platform 3", "room 12"), and the plural that may come later in the sentence belongs to another
phrase ("route 62 on weekdays", "at 6 on Sundays").
"""

from __future__ import annotations

from selfrag.lang import FUNCTION_WORDS, QUERY_STOP, UNITS, Token, forms, word_set
from selfrag.query._lexicon import CUES, POSTFIX, YEAR_ONLY_CUES
from selfrag.query._numbers import Number
from selfrag.query._profile import SchemaProfile
from selfrag.query._spans import Spans
from selfrag.query._text import plural, term_match

__all__ = ["MAX_LIMIT", "asks_count", "bound_cue", "label_before", "read_led_limit", "read_limit"]

_LIMIT_VERBS = word_set("limit_verbs")
_LIMIT_LEADS = word_set("limit_leads")
_COUNT_MODIFIERS = word_set("count_modifiers")
_CUE_WORDS = frozenset(w for cue in CUES for w in cue.split())
_PHRASE_ENDS = FUNCTION_WORDS - {"a", "an", "the", "of", "and", "or"}
"""Words that end the noun phrase a count heads ("5 of the Thai or Chinese dishes" goes on;
"62 on weekdays" stops at "on": the weekdays are not what 62 counts)."""
MAX_LIMIT = 100
"""The largest count read as a limit; a larger number is something else."""


def _led(before: list[Token]) -> bool:
    """ "top 5", "show me 5", "list 5": the words before a number ask for that many results."""
    if not before:
        return False
    last = before[-1].norm
    return last in _LIMIT_LEADS or last in _LIMIT_VERBS or (
        len(before) >= 2 and last in ("me", "us") and before[-2].norm in _LIMIT_VERBS
    )


def _labels(before: list[Token], n: Number, question: str) -> bool:
    """A noun written right before the number: it names the one thing the number labels
    ("route 62", "bus 62", "platform 3", "flight 24"). Words that may precede a count are not
    such nouns: function words, comparison cues ("exactly 3"), superlatives ("the cheapest 3")
    and the few modifiers of a count ("another 5", "the next 3")."""
    if not before or question[before[-1].end : n.start].strip(" #-"):
        return False
    word = before[-1]
    superlative = word.norm.endswith("est") and word.lemma != word.norm
    return word.norm.isalpha() and not superlative and word.norm not in QUERY_STOP | _CUE_WORDS | _COUNT_MODIFIERS | _LIMIT_VERBS


def label_before(question: str, tokens: list[Token], n: Number) -> Token | None:
    """The noun written right before ``n`` that names the one thing it labels ("route" in "route
    62"), or None (see ``_labels``)."""
    before, _ = _window(tokens, n)
    return before[-1] if _labels(before, n, question) else None


def _counts_results(after: list[Token], profile: SchemaProfile, taken: Spans) -> bool:
    """The words after a number name the collection's items ("5 recipes"), not a quantity ("3 bedrooms")."""
    for t in after:
        if t.norm in _PHRASE_ENDS:
            return False
        if t.norm.isdigit() or t.lemma in UNITS or any(term_match(forms(t.norm), p.name_terms) for p in profile.numeric()):
            return False
        if t.lemma in profile.item_nouns or plural(t):
            return True
        if taken.free((t.start, t.end)) and t.norm not in QUERY_STOP and not t.norm.isalpha():
            return False
    return False


_ORDERING_CUES = sorted((c.split() for c, comp in CUES.items() if comp != "eq" and c not in YEAR_ONLY_CUES), key=len, reverse=True)
_ORDERING_POSTFIX = sorted((p.split() for p, comp in POSTFIX.items() if comp != "eq"), key=len, reverse=True)


def bound_cue(question: str, tokens: list[Token], n: Number) -> tuple[int, int] | None:
    """The span of ``n`` with the words that make it a bound on something: an ordering cue
    before it ("fewer than 50", "at least a 100"), an ordering phrase after it and its noun ("20
    places or more"), or a plus ("10+"); None for a plain number. Cues that order years only
    ("after", "since") are left out: "from 5 recipes" bounds nothing."""
    before = [t for t in tokens if t.end <= n.start]
    if before and before[-1].norm in ("a", "an", "the"):
        before = before[:-1]
    words = [t.norm for t in before]
    start = next((before[-len(c)].start for c in _ORDERING_CUES if len(c) <= len(words) and words[-len(c):] == c), None)
    after = [t for t in tokens if t.start >= n.stop]
    end = next((after[len(p) - 1].end for p in _ORDERING_POSTFIX if [t.norm for t in after[: len(p)]] == p), None)
    if start is None and end is None and not n.plus:
        return None
    return (n.start if start is None else start, n.stop if end is None else end)


def _window(tokens: list[Token], n: Number) -> tuple[list[Token], list[Token]]:
    """The three words before the number and the four after it."""
    return [t for t in tokens if t.end <= n.start][-3:], [t for t in tokens if t.start >= n.end][:4]


def asks_count(question: str, n: Number, tokens: list[Token], profile: SchemaProfile, taken: Spans) -> bool:
    """Whether the free number ``n`` asks for that many results."""
    if n.money or n.scaled or n.year_like or not n.value.is_integer() or not 0 < n.value <= MAX_LIMIT:
        return False
    if bound_cue(question, tokens, n) is not None:
        return False
    before, after = _window(tokens, n)
    return _led(before) or (not _labels(before, n, question) and _counts_results(after, profile, taken))


def read_limit(question: str, tokens: list[Token], numbers: list[Number], profile: SchemaProfile, taken: Spans) -> int | None:
    """The first free number that asks for a count of results, claimed in ``taken`` with its lead
    word ("top"), or None."""
    for n in numbers:
        if not taken.free((n.start, n.end)) or not asks_count(question, n, tokens, profile, taken):
            continue
        before, _ = _window(tokens, n)
        lead = _led(before) and before[-1].norm in _LIMIT_LEADS
        taken.claim((before[-1].start if lead else n.start, n.end))
        return int(n.value)
    return None


def read_led_limit(tokens: list[Token], numbers: list[Number], taken: Spans) -> int | None:
    """The first free number a limit's lead word is right before ("top 3") or a superlative right
    after ("the 3 highest"), claimed in ``taken`` with its lead word, or None. Read before any
    condition: "top 3 written scores" asks for three results, not a written score of 3, and "the 3
    highest" no grade "3"."""
    for n in numbers:
        if not taken.free((n.start, n.end)) or n.money or n.scaled or n.year_like or not n.value.is_integer() \
                or not 0 < n.value <= MAX_LIMIT:
            continue
        before, after = _window(tokens, n)
        led = bool(before) and before[-1].norm in _LIMIT_LEADS
        ranked = bool(after) and (after[0].norm in ("most", "least") or (after[0].norm.endswith("est") and after[0].lemma != after[0].norm))
        if led or ranked:
            taken.claim((before[-1].start if led else n.start, n.end))
            return int(n.value)
    return None
