"""Text helpers shared by validation, the rule-based constructor and grounding.

Everything here is about comparing a user's words with attribute names and known values, so
all of it folds case, accents and punctuation the same way: two spellings that only differ in
those respects must compare equal everywhere in the package, or the LLM path and the rules path
would disagree about the same question.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import simplemma

from selfrag.schema import AttributeInfo

__all__ = [
    "NUMBER_WORDS",
    "STOP",
    "Token",
    "attribute_words",
    "forms",
    "is_score_attribute",
    "is_year_attribute",
    "lemma",
    "normalize",
    "number_value",
    "stem",
    "term_match",
    "tokenize",
    "words",
]

STOP = frozenset(["a", "an", "the", "this", "that", "these", "those", "there", "here", "it", "its", "it's", "i", "i'm", "im", "me", "my", "we", "our", "you", "your", "they", "them", "their", "he", "she", "his", "her", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "done", "has", "have", "had", "having", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "what", "whats", "what's", "which", "who", "whom", "whose", "where", "when", "why", "how", "any", "some", "all", "each", "every", "either", "neither", "both", "few", "more", "most", "of", "to", "in", "on", "at", "by", "for", "from", "with", "about", "into", "onto", "over", "under", "than", "then", "as", "so", "such", "just", "only", "also", "very", "really", "quite", "too", "and", "or", "but", "nor", "if", "not", "no", "yes", "please", "thanks", "want", "wanna", "need", "needs", "like", "looking", "look", "find", "show", "give", "get", "got", "tell", "list", "name", "recommend", "suggest", "search", "see", "watch", "read", "make", "let", "lets", "let's", "id", "i'd", "ill", "i'll", "ive", "i've", "one", "ones", "something", "anything", "thing", "things", "kind", "type", "sort", "good", "great", "nice", "best", "top", "some", "preferably", "ideally", "perhaps", "maybe", "possibly", "ideally", "also", "just", "especially", "particularly", "mostly", "around", "approximately", "roughly", "say", "e.g.", "eg", "etc"])
"""Function words and conversational filler: never a value, never a topic on their own."""

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|[$€£¥%+<>=≤≥]")


@dataclass(frozen=True)
class Token:
    """One word or symbol of a question, with its place and its folded forms."""

    text: str
    start: int
    end: int
    norm: str
    """Casefolded, accents stripped, apostrophes removed ("aren't" → "arent")."""
    lemma: str
    """Dictionary form of ``norm`` ("comedies" → "comedy"); ``norm`` for symbols and numbers."""


def tokenize(text: str) -> list[Token]:
    """Words (letters and digits; an inner apostrophe kept) and the symbols filters care about."""
    out = []
    for m in _TOKEN.finditer(text):
        norm = normalize(m.group()).replace(" ", "") or m.group()
        out.append(Token(m.group(), m.start(), m.end(), norm, lemma(norm)))
    return out


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of one word, from simplemma's English data (shipped in its wheel)."""
    w = word.casefold()
    if not w.isalpha() or len(w) <= 2:
        return w
    found = simplemma.lemmatize(w, lang="en").casefold()
    return found if found.isalpha() else w


def forms(word: str) -> frozenset[str]:
    """Every folded form one word is compared by: itself, its lemma and its light stem."""
    w = normalize(word).replace(" ", "")
    return frozenset({w, lemma(w), stem(w), stem(lemma(w))})

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


def term_match(word_forms: frozenset[str], terms: frozenset[str]) -> bool:
    """A word names an attribute term: same form, or one an abbreviation of the other ("bath" → bathrooms)."""
    if word_forms & terms:
        return True
    for w in word_forms:
        if len(w) < 3 or w in STOP:
            continue
        for t in terms:
            if len(t) < 3:
                continue
            short, long_ = (w, t) if len(w) <= len(t) else (t, w)
            if long_.startswith(short) and (len(short) >= 4 or (len(short) == 3 and len(long_) >= 6)):
                return True
    return False
