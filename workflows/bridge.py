"""Questions about a thing named by a relative clause, read in two hops.

"What is the daily late fee at the library whose card Kettle & Co pays for?" names its library
only by what another document says of it. Read whole, a small reader answers from the sentence
nearest the question's words (the card, not the fee). Taken apart, as a person would:

1. ``parse_bridge`` finds the definite description ("the library whose card Kettle & Co pays
   for", "the bridge designed by a former pupil of X") that closes the question, and asks for the
   thing first: "What is the library whose card Kettle & Co pays for?";
2. ``read_bridge`` reads that, puts the answer in the description's place and reads the question
   about it: "What is the daily late fee at Elm Row Library?". Its probability is the product of
   the hops' (both must be right, and the second is read about what the first found, right or
   wrong). It replaces the question read whole when its weaker hop is surer than that reading;
   the answer cites the sentence of each hop (``workflows.reading``).

Only a description that runs to the end of the question is taken: after "did" or "does" the main
verb follows the clause ("… did the museum that hosts the workshop receive in 2022?"), and where
the clause ends is not written. A description that is all the question asks about ("Who is the
person that founded the club?") is one hop, and a clause holding the question's wh-word ("a hotel
company that has a head office in what city?") is the question itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from selfrag.lang.questions import AUXILIARIES, WH_WORDS
from selfrag.reading import Reader, Reading

__all__ = ["Bridge", "Bridged", "parse_bridge", "read_bridge"]

# "the <noun, 1-4 words> whose|that|which|who|where <clause>" or "the <noun> <verb>ed by <agent>",
# running to the end of the question.
_DESCRIPTION = re.compile(r"\bthe\s+(?P<noun>[\w'’&-]+(?:\s+[\w'’&-]+){0,3}?)\s+"
                          r"(?P<rel>whose|that|which|who|where|[a-z]+ed\s+by)\s+(?P<clause>[^,;:?]+?)\s*\?*\s*$",
                          re.IGNORECASE)
_DO_SUPPORT = frozenset(["do", "does", "did"])


@dataclass(frozen=True)
class Bridge:
    first: str
    """The question for the thing: "What is the library whose card X pays for?"."""
    then: str
    """The question about it, ``{}`` where its name goes: "What is the daily late fee at {}?"."""


@dataclass(frozen=True)
class Bridged:
    thing: Reading
    """The first hop's reading: the thing the description names."""
    answer: Reading
    """The second hop's: the answer about that thing."""
    probability: float
    """That both hops are right: the product of theirs (the second is read about what the first
    found, right or wrong)."""
    surety: float
    """The weaker hop's probability: how this reading is weighed against the question read whole."""


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’&-]+", text.lower())


def parse_bridge(question: str) -> Bridge | None:
    """The two hops of ``question``, or None when it names nothing by a relative clause."""
    q = " ".join(question.split())
    m = _DESCRIPTION.search(q)
    if m is None:
        return None
    prefix = q[: m.start()].rstrip()
    before, noun, clause = _words(prefix), _words(m.group("noun")), _words(m.group("clause"))
    if not before or not set(before) & WH_WORDS or set(noun + clause) & WH_WORDS or len(clause) < 2:
        return None
    if before[-1] in _DO_SUPPORT:
        return None  # the main verb comes after the clause, and where the clause ends is not written
    if not [w for w in before if w not in WH_WORDS and w not in AUXILIARIES]:
        return None  # "Who is the person that …": the description is what is asked
    description = q[m.start() : m.end()].rstrip(" ?")
    return Bridge(first=f"What is {description}?", then=f"{prefix} {{}}?")


def read_bridge(reader: Reader, question: str, passages: Sequence[str]) -> Bridged | None:
    """Both hops read from ``passages``, or None when either reads nothing (or the second reads the
    thing back, or a phrase holding it)."""
    bridge = parse_bridge(question)
    if bridge is None or not passages:
        return None
    thing = reader.read(bridge.first, list(passages))
    if thing.kind != "span" or not thing.answer.strip():
        return None
    answer = reader.read(bridge.then.format(thing.answer.strip()), list(passages))
    said, found = set(_words(answer.answer)), set(_words(thing.answer))
    if answer.kind == "none" or not said or said <= found or found <= said:
        return None  # the second hop read the thing itself back ("Who was the wife of X?" -> "X")
    return Bridged(thing, answer, thing.probability * answer.probability, min(thing.probability, answer.probability))
