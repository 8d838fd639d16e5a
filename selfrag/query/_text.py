"""Text helpers shared by validation, the rule-based constructor and grounding.

Everything here is about comparing a user's words with attribute names and known values, so
all of it folds case, accents and punctuation the same way: two spellings that only differ in
those respects must compare equal everywhere in the package, or the LLM path and the rules path
would disagree about the same question.
"""

from __future__ import annotations

import re
import unicodedata

from selfrag.schema import AttributeInfo

__all__ = [
    "NUMBER_WORDS",
    "attribute_words",
    "is_score_attribute",
    "is_year_attribute",
    "normalize",
    "number_value",
    "stem",
    "words",
]

_NON_WORD = re.compile(r"[^\w]+")
_POSSESSIVE = re.compile(r"['’]s\b")

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "a couple of": 2, "a couple": 2, "a pair of": 2, "a dozen": 12,
}  # fmt: skip
"""Spelled-out numbers people use for counts and spans ("two movies", "the last five years")."""

_YEAR_HINTS = ("year", "released", "published", "founded")
_SCORE_HINTS = ("rating", "rated", "score", "stars", "grade", "review")


def normalize(text: str) -> str:
    """Casefold, strip accents, turn punctuation into single spaces: ``"Sci-Fi!"`` → ``"sci fi"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = _POSSESSIVE.sub("", plain)
    return " ".join(_NON_WORD.sub(" ", plain.casefold().replace("_", " ")).split())


def words(text: str) -> list[str]:
    """The normalized words of ``text``."""
    return normalize(text).split()


def stem(word: str) -> str:
    """A deliberately light stemmer: plurals and the animated/animation pair.

    Heavier stemming makes short values collide with ordinary words ("acting" → "act" →
    "action"), which is worse than missing an inflection.
    """
    w = word.casefold()
    if len(w) >= 5 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) >= 5 and w.endswith(("ches", "shes", "xes", "sses")):
        return w[:-2]
    if len(w) >= 4 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) >= 7 and w.endswith("ation"):
        return w[:-5] + "at"
    if len(w) >= 7 and w.endswith("ated"):
        return w[:-4] + "at"
    return w


def number_value(token: str) -> float | None:
    """A number written as digits or as a word (``"8.5"``, ``"1,000"``, ``"two"``), else None."""
    t = token.strip().casefold()
    if t in NUMBER_WORDS:
        return float(NUMBER_WORDS[t])
    try:
        return float(t.replace(",", ""))
    except ValueError:
        return None


def attribute_words(attr: AttributeInfo) -> set[str]:
    """Stemmed words of an attribute's name and description, used to find which one a phrase is about."""
    return {stem(w) for w in words(attr.name) + words(attr.description) if len(w) > 2}


def is_year_attribute(attr: AttributeInfo) -> bool:
    """An integer attribute holding a calendar year, judged by its name and description."""
    if attr.type != "integer":
        return False
    text = f"{attr.name} {attr.description}".casefold()
    return any(h in text for h in _YEAR_HINTS)


def is_score_attribute(attr: AttributeInfo) -> bool:
    """A numeric attribute holding a rating or score, judged by its name and description."""
    if attr.type not in ("integer", "float"):
        return False
    text = f"{attr.name} {attr.description}".casefold()
    return any(h in text for h in _SCORE_HINTS)
