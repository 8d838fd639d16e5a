"""The set a question asks about, as a noun phrase a follow-up's "those" can stand for.

"which of those is the oldest?" after "What's in room 6?" asks which of *the ones in room 6* is
the oldest: the condition must travel with the follow-up, or the self-query plans no filter and
the answer comes from anywhere. A question asks about a set when it opens with a wh-determiner
("which objects were acquired after 1990?", "how many hotels in Rome allow pets?"), "what is/are"
("What's in room 6?"), "is/are there" or a request verb ("show me flats in Leeds"). Its noun phrase
is the noun, the prepositional phrases after it, and the rest of the clause as a relative clause:

    "Which objects were acquired after 1990?"  → the objects that were acquired after 1990
    "How many hotels in Rome allow pets?"       → the hotels in Rome that allow pets
    "What clubs are there in Boston?"           → the clubs in Boston
    "What's in room 6?"                         → the ones in room 6
    "Which of the objects in room 6 are on loan?" → the objects in room 6

English's closed classes are all it reads; without an auxiliary the verb is taken to follow the
noun's first word and its prepositional phrases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selfrag.lang import DETERMINERS, FUNCTION_WORDS
from selfrag.lang.questions import AUXILIARIES, PREPOSITIONS, REQUEST_VERBS

__all__ = ["AskedSet", "asked_set"]

_AUX = frozenset(AUXILIARIES)
_DO = frozenset(["do", "does", "did"])
_PREPS = frozenset(PREPOSITIONS)
_WORD = re.compile(r"[^\s?!.,;]+")
_LEADS = (
    re.compile(r"^(?:which|what|how\s+many)\s+(?!(?:" + "|".join(AUXILIARIES) + r")\b)(?P<rest>.+)$", re.IGNORECASE),
    re.compile(r"^(?:what|which)(?:'s|’s|\s+is|\s+are|\s+were|\s+was)\s+(?P<np>.+)$", re.IGNORECASE),
    re.compile(r"^(?:are|is|were|was)\s+there\s+(?P<np>.+)$", re.IGNORECASE),
    re.compile(r"^(?:" + "|".join(sorted(REQUEST_VERBS)) + r")\s+(?:me\s+|us\s+)?(?P<np>.+)$", re.IGNORECASE),
)


@dataclass(frozen=True)
class AskedSet:
    """A set a question asks about."""

    noun: str | None
    """Its noun ("objects", "chess clubs"), or None where the question names none ("What's in room 6?")."""
    qualifier: str
    """What narrows it: prepositional phrases and a relative clause ("in Rome that allow pets")."""

    def phrase(self, noun: str | None = None) -> str:
        """"the <noun> <qualifier>", with the noun given (a follow-up's "those paintings"), else
        its own, else "ones"."""
        head = noun or self.noun or "ones"
        article = "" if head.split()[0].lower().endswith(("'s", "’s")) else "the"  # "Walmart's revenue"
        return " ".join(w for w in (article, head, self.qualifier) if w)


def _strip_determiners(words: list[str]) -> list[str]:
    while words and words[0].lower() in (DETERMINERS | {"the", "a", "an"}) - {"other", "own"}:
        words = words[1:]
    return words


def _split(words: list[str]) -> AskedSet | None:
    """A noun phrase's words as a noun and what follows it ("chess clubs in Boston")."""
    words = _strip_determiners(words)
    if not words:
        return None
    cut = next((i for i, w in enumerate(words) if w.lower() in _PREPS or w.lower() in ("that", "which", "who")), len(words))
    noun = " ".join(words[:cut]) or None
    return AskedSet(noun, " ".join(words[cut:]))


def _object_end(words: list[str], i: int) -> int:
    """Where the object of the preposition at ``i`` ends: a capitalised run, a figure, else one word."""
    j = i + 1
    if j < len(words) and (words[j][:1].isupper() or any(c.isdigit() for c in words[j])):
        while j + 1 < len(words) and (words[j + 1][:1].isupper() or any(c.isdigit() for c in words[j + 1])):
            j += 1
    return min(j + 1, len(words))


def _clause(words: list[str]) -> AskedSet | None:
    """``words`` after a wh-determiner: a noun phrase, then the clause about it."""
    aux = next((i for i, w in enumerate(words) if w.lower() in _AUX), None)
    if words and words[0].lower() == "of":
        # "which of the objects that were acquired after 1990 are on loan": the set is the one
        # named after "of", up to the clause's own (last) auxiliary.
        last = max((i for i, w in enumerate(words) if w.lower() in _AUX), default=len(words))
        return _split(words[1:last])
    if aux is None:
        # No auxiliary ("hotels in Rome allow pets"): the noun's first word, its prepositional
        # phrases, then the verb.
        end = 1
        while end < len(words) and words[end].lower() in _PREPS:
            end = _object_end(words, end)
        noun_words, rest = words[:end], ["that", *words[end:]] if words[end:] else []
    elif aux + 1 < len(words) and words[aux + 1].lower() == "there":
        noun_words, rest = words[:aux], words[aux + 2 :]  # "clubs are there in Boston"
    elif words[aux].lower() in _DO:
        noun_words, rest = words[:aux], ["that", *words[aux + 1 :]]  # "films did Nolan direct"
    else:
        noun_words, rest = words[:aux], ["that", *words[aux:]]
    head = _split(noun_words)
    if head is None:
        return None
    return AskedSet(head.noun, " ".join(w for w in (head.qualifier, " ".join(rest)) if w))


def asked_set(question: str) -> AskedSet | None:
    """The set ``question`` asks about, or None when it asks about no set (see the module docstring)."""
    q = " ".join(question.split()).rstrip("?!. ")
    for n, lead in enumerate(_LEADS):
        m = lead.match(q)
        if m is None:
            continue
        words = _WORD.findall(m.group("rest" if n == 0 else "np"))
        if n == 0:
            return _clause(words)
        if words and words[0].lower() in _PREPS:
            return AskedSet(None, " ".join(words))  # "What's in room 6"
        if words and words[0].lower() in FUNCTION_WORDS - {"the", "a", "an"}:
            return None
        return _split(words)
    return None
