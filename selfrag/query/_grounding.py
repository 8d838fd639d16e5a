"""Grounding: how many of a filter's conditions the question itself supports.

A small model asked for a filter will sometimes invent one ("movies about dinosaurs" →
``director eq "Steven Spielberg"``). Such a filter silently hides every other relevant document,
which is worse than no filter. Counting the clauses whose value can be found in the question
(a name, a number, a decade) gives the planner an objective way to prefer the rule-based filter
when the model's is less grounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from selfrag.lang import NUMBER_PHRASES, NUMBER_WORDS, find_year_phrases, normalise, stem
from selfrag.query._match import KnownValues
from selfrag.query.model import Comparison, FilterNode, Operation, Scalar

__all__ = ["clauses", "grounding", "supported"]

_DIGITS = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)*")


def clauses(node: FilterNode | None) -> Iterator[Comparison]:
    """Every comparison in the tree, depth first."""
    if node is None:
        return
    if isinstance(node, Operation):
        for arg in node.arguments:
            yield from clauses(arg)
    else:
        yield node


def _numbers(question: str, today: date) -> set[float]:
    found: set[float] = set()
    for m in _DIGITS.finditer(question):
        try:
            n = float(m.group().replace(",", ""))
        except ValueError:
            continue
        found.add(n)
        if n.is_integer():
            found.update({n - 1, n + 1})  # "after 1990" is as well said gte 1991
    for phrase in find_year_phrases(question, today):
        found.update({phrase.start, phrase.end, phrase.start - 1, phrase.end + 1})
    text = question.casefold()
    found.update(float(v) for w, v in (NUMBER_WORDS | NUMBER_PHRASES).items() if re.search(rf"\b{w}\b", text))
    return found


def _string_supported(value: str, question_words: list[str]) -> bool:
    index = KnownValues([value])
    size = index.max_words
    for n in range(1, size + 2):
        for i in range(len(question_words) - n + 1):
            if index.match(" ".join(question_words[i : i + n])) is not None:
                return True
    return False


def supported(clause: Comparison, question: str, *, today: date | None = None) -> bool:
    """Whether every value of ``clause`` can be found in, or derived from, ``question``."""
    values: list[Scalar] = list(clause.value) if isinstance(clause.value, list) else [clause.value]
    if not values:
        return False
    qwords = normalise(question).split()
    numbers: set[float] | None = None
    for value in values:
        if isinstance(value, bool):
            stems = {stem(w) for w in qwords}
            if not any(stem(w) in stems for w in normalise(clause.attribute).split() if len(w) > 2):
                return False
        elif isinstance(value, (int, float)):
            numbers = _numbers(question, today or date.today()) if numbers is None else numbers
            if float(value) not in numbers:
                return False
        elif not _string_supported(value, qwords):
            return False
    return True


def grounding(node: FilterNode | None, question: str, *, today: date | None = None) -> int:
    """How many comparisons in ``node`` have all their values supported by ``question``.

    Strings count when present up to case, inflection, abbreviation, a typo or a surname;
    numbers when written in the question (±1 for integers, since "after 1990" may become
    ``gte 1991``) or derivable from a year phrase ("the 90s", "the last 5 years").
    ``today`` resolves relative phrases; it defaults to the current date.
    """
    return sum(1 for c in clauses(node) if supported(c, question, today=today))
