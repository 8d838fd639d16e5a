"""Word forms: the dictionary form (simplemma's English data) and a deliberately light stem.

``forms`` is every form one word is compared by; ``term`` is the single form a word is indexed
and counted by (lexical retrieval, the graders' overlap signals, the rewriter and the condenser).
"""

from __future__ import annotations

from functools import lru_cache

import simplemma

from selfrag.lang.normalise import normalise

__all__ = ["doer_of", "forms", "lemma", "stem", "term"]


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of one word ("comedies" → "comedy"); short and non-alphabetic words as they are."""
    w = word.casefold()
    if not w.isalpha() or len(w) <= 2:
        return w
    found = simplemma.lemmatize(w, lang="en").casefold()
    return found if found.isalpha() else w


def stem(word: str) -> str:
    """A light stemmer: plurals and the animated/animation pair.

    Heavier stemming (Porter, Snowball) makes short values collide with ordinary words ("acting"
    → "act" → "action"), which is worse than missing an inflection.
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


def term(word: str) -> str:
    """The one form a folded word is counted by: its stemmed lemma ("revenues" → "revenue",
    "directed" → "direct"); numbers and words of three letters or fewer unchanged."""
    if not word.isalpha() or len(word) <= 3:
        return word
    return stem(lemma(word))


def forms(word: str) -> frozenset[str]:
    """Every folded form one word is compared by: itself, its lemma and its light stem."""
    w = normalise(word).replace(" ", "")
    return frozenset({w, lemma(w), stem(w), stem(lemma(w))})


_DOER_ENDINGS = ("er", "or", "r", "ist")


def doer_of(noun: str, verb: str) -> bool:
    """Whether ``noun`` names the one who does ``verb`` (any form of it): "inspector" of
    "inspected", "reporter" of "report", "director" of "directs", "verifier" of "verified"."""
    base = lemma(verb.casefold())
    n = noun.casefold()
    if len(base) > 3 and base.endswith("y") and base[-2] not in "aeiou":
        base = base[:-1] + "i"  # "verify": the verifier, "supply": the supplier
    return len(base) > 2 and n.startswith(base) and n[len(base):] in _DOER_ENDINGS
