"""Resolving a clarification reply ("the second one", "Mercury Records", "the carmaker") to a candidate."""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfrag.kg.entities import Candidate, EntityIndex
from selfrag.lang import normalise

__all__ = ["resolve_reply"]

_ORDINALS = {
    "first": 1, "1st": 1, "one": 1, "second": 2, "2nd": 2, "two": 2, "third": 3, "3rd": 3, "three": 3,
    "fourth": 4, "4th": 4, "four": 4, "fifth": 5, "5th": 5, "five": 5, "sixth": 6, "6th": 6, "six": 6,
}
_LAST = {"last", "latter"}
_FILLER = {"the", "a", "an", "one", "i", "mean", "meant", "please", "option", "number", "no", "it", "s", "is", "that", "which"}


def _ordinal(words: list[str], n: int) -> int | None:
    """A 1-based position from "2", "#2", "second", "the 2nd one", "last"; None if the reply is not one."""
    content = [w for w in words if w not in _FILLER or w in _ORDINALS]
    if len(content) != 1:
        # "the second one": "one" is filler once an ordinal word is present.
        content = [w for w in content if w != "one"] if len(content) == 2 and "one" in content else content
    if len(content) != 1:
        return None
    w = content[0]
    if w in _LAST:
        return n
    if w.isdigit():
        return int(w)
    return _ORDINALS.get(w)


def resolve_reply(reply: str, candidates: Sequence[Candidate]) -> Candidate | None:
    """The candidate ``reply`` picks, or None when it picks none or several.

    In order: an ordinal (1-based, as the candidates were shown); the candidate's name or one of its
    aliases (exact, then fuzzy, among the candidates only); then the words of what tells them apart
    ("the record label" picks the candidate whose industry is "record label") when exactly one
    candidate shares the most words with the reply.
    """
    if not candidates:
        return None
    words = normalise(re.sub(r"#", " ", reply)).split()
    pos = _ordinal(words, len(candidates))
    if pos is not None:
        return candidates[pos - 1] if 1 <= pos <= len(candidates) else None
    index = EntityIndex(c.entity for c in candidates)
    match = index.match(reply)
    if match.status == "unique" and match.entity is not None:
        return next(c for c in candidates if c.entity.id == match.entity.id)
    reply_words = set(words) - _FILLER
    scores = []
    for c in candidates:
        facts = " ".join([c.entity.name, *c.entity.aliases, *c.differences.values()])
        scores.append(len(reply_words & set(normalise(facts).split())))
    best = max(scores)
    if best > 0 and scores.count(best) == 1:
        return candidates[scores.index(best)]
    return None
