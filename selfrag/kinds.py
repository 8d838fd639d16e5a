"""What an attribute's values mean: its kind and unit, declared in the schema or guessed once.

A schema may declare each attribute's ``kind`` and ``unit``; what it leaves out is guessed when
the schema is declared (a collection is created, a schema file is read) from the attribute's type,
name, description and allowed values, shown to the user, and stored with the collection. Every
reader of the self-query then uses the stored kind: nothing re-guesses from description words.

Kinds:

=========== ======================================================================
year        a calendar year ("founded", "year built")
date        a calendar day (``date`` attributes)
money       an amount of money ("price", "fee per year in dollars")
duration    a span of time in a unit ("in minutes", "years of experience")
score       a rating or score ("1 to 5 stars", "average review")
count       a whole number of things ("how many members")
length, area, weight, energy, percent, temperature
            a measure in a unit of that dimension ("in km", "sq ft", "kcal", "%", "in °C")
name        proper names: people, companies ("author", "president")
place       places ("city where it meets")
identifier  a value names one document ("code" of a course, "isbn"): a yes/no question about
            the thing it names asks of that one document (see ``selfrag.query._asked``)
category    one of a few values (``allowed_values``)
flag        true or false (``boolean``)
=========== ======================================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, cast, get_args

from selfrag.lang import UNITS, identifier_words, lemma, normalise, word_map, word_set

__all__ = ["KINDS", "AttributeKind", "guess_kind", "measure_dimension"]

AttributeKind = Literal[
    "year", "date", "money", "duration", "score", "count", "length", "area", "weight", "energy", "percent",
    "temperature", "name", "place", "identifier", "category", "flag",
]  # fmt: skip
KINDS: tuple[str, ...] = get_args(AttributeKind)

_MEASURES: dict[str, AttributeKind] = {"time": "duration", "length": "length", "area": "area", "weight": "weight",
                                        "energy": "energy", "percent": "percent", "stars": "score", "money": "money",
                                        "temperature": "temperature", "fahrenheit": "temperature"}  # fmt: skip
# Short unit spellings are units only as written on their own ("in km"); longer ones by their lemma too.
_SHORT_UNITS = word_set("short_units")
_RATE = word_set("rate_words")
"""Before a unit word, these make it the denominator of a rate ("fee per year", "meets each month")."""
_MONEY = word_set("money_nouns")
_EVENT = word_set("event_verbs")
_COUNTING = word_set("counting_words")
_SCORE = word_set("score_words")
_NAME = word_set("name_words")
_PLACE = word_set("place_words")
_IDENTIFIER = word_set("identifier_words")
_NOUN_MEASURES: dict[str, AttributeKind] = {
    w: cast(AttributeKind, k) for w, k in word_map("noun_measures").items() if k in get_args(AttributeKind)
}
"""Nouns of an attribute's *name* that say what it measures when no unit is stated."""


def measure_dimension(kind: str | None) -> str | None:
    """The unit dimension (``selfrag.lang.UNITS``) a numeric kind is measured in, if any."""
    dimensions: dict[str, str] = {v: k for k, v in _MEASURES.items() if k not in ("stars", "fahrenheit")}
    return dimensions.get(kind or "")


def _words(name: str, description: str) -> tuple[list[str], list[str]]:
    return identifier_words(name), normalise(description).split()


def _stated_unit(words: list[str], raw: str) -> str | None:
    """The unit the words state, money first ("pay per hour in dollars" is money), not a rate's denominator."""
    joined = " ".join(words)
    found = [k for k in UNITS if " " in k and re.search(rf"\b{re.escape(k)}\b", joined)]
    found += [s for s in ("$", "€", "£", "¥", "%") if s in raw]
    found += [("celsius" if m.group(1) in "cC" else "fahrenheit") for m in re.finditer(r"[°º]\s?([CcFf])\b", raw)]
    for i, w in enumerate(words):
        if i and words[i - 1] in _RATE:
            continue
        for f in (w, lemma(w)):
            if f in UNITS and (len(f) > 3 or f in _SHORT_UNITS):
                found.append(f)
                break
    money = [u for u in found if UNITS[u].dimension == "money"]
    # "temperature over the year in degrees Celsius": the scale, not the year the mean is over.
    scales = [u for u in found if u in ("celsius", "centigrade", "fahrenheit", "degree celsius", "degree fahrenheit")]
    chosen = money or scales or found
    return chosen[0] if chosen else None


def _numeric(type_: str, name_words: list[str], desc_words: list[str], raw: str,
             values: Sequence[object]) -> tuple[AttributeKind | None, str | None]:  # fmt: skip
    words = name_words + desc_words
    lemmas = {lemma(w) for w in words}
    unit = _stated_unit(words, raw)
    if (unit is not None and UNITS[unit].dimension == "money") or lemmas & _MONEY:
        return "money", unit
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    yearish = bool(numbers) and all(1000 <= v <= 2999 for v in numbers)
    calendar = any(w in ("year", "yr") and not (i and words[i - 1] in _RATE) for i, w in enumerate(words))
    if type_ == "integer" and not lemmas & _COUNTING and (calendar or set(words) & _EVENT or yearish):
        # "year_built", "When the club was founded" hold calendar years; "years of experience" a duration.
        return "year", None
    if unit is not None:
        kind = _MEASURES[UNITS[unit].dimension]
        return kind, unit
    if lemmas & _SCORE:
        return "score", None
    for w in name_words:
        if lemma(w) in _NOUN_MEASURES:
            return _NOUN_MEASURES[lemma(w)], None
    if "years" in words and type_ == "integer":
        return "duration", "year"
    return ("count", None) if type_ == "integer" or lemmas & _COUNTING else (None, None)


def guess_kind(
    type_: str, name: str, description: str = "", allowed_values: Sequence[object] | None = None
) -> tuple[AttributeKind | None, str | None]:
    """The kind and unit an attribute's declaration suggests; (None, None) when nothing does.

    >>> guess_kind("integer", "yearly_fee", "Membership fee per year in dollars")
    ('money', 'dollar')
    >>> guess_kind("integer", "founded", "When the club was founded")
    ('year', None)
    """
    if type_ == "boolean":
        return "flag", None
    if type_ == "date":
        return "date", None
    name_words, desc_words = _words(name, description)
    if type_ in ("integer", "float"):
        return _numeric(type_, name_words, desc_words, description, allowed_values or [])
    lemmas = {lemma(w) for w in name_words + desc_words}
    if lemmas & _PLACE:
        return "place", None
    if allowed_values:
        return "category", None
    if name_words and name_words[-1] in _IDENTIFIER:
        # Its name says so ("code", "course_code", "isbn"); a code of something else names a place first ("country_code").
        return "identifier", None
    if lemmas & _NAME:
        return "name", None
    return None, None
