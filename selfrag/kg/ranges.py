"""Named ranges on numeric attributes: words in a question mapped to declared conditions.

A schema declares, for instance, ``sentiment``: positive → ``> 0.5``, negative → ``< -0.5``, each
with the words that name it. Matching is on lemmas, so "positively" and "negatives" count too.
A question naming two ranges of one attribute ("positive or negative") sets neither: that is no
filter at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from selfrag.kg.schema import AttributeName
from selfrag.lang import lemma

__all__ = ["NamedRange", "RangeCondition", "find_named_ranges"]

Comparator = Literal["gt", "gte", "lt", "lte"]


class NamedRange(BaseModel):
    """``attribute comparator value``, named by ``words`` (the first is its name)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attribute: AttributeName
    words: tuple[str, ...] = Field(min_length=1)
    comparator: Comparator
    value: float

    @property
    def name(self) -> str:
        return self.words[0]


class RangeCondition(BaseModel):
    model_config = ConfigDict(frozen=True)

    attribute: str
    name: str
    comparator: Comparator
    value: float


def _lemmas(text: str) -> list[str]:
    return [lemma(w) for w in re.findall(r"[^\W_]+", text.casefold())]


def _stem(lemma: str) -> str:
    # "positively" → "positive", "negatives" → "negative": simplemma leaves adverbs alone.
    return lemma.removesuffix("ly") if lemma.endswith("ly") and len(lemma) > 5 else lemma


def find_named_ranges(question: str, ranges: Sequence[NamedRange]) -> list[RangeCondition]:
    """The named ranges the question uses, at most one per attribute."""
    words = [_stem(w) for w in _lemmas(question)]
    text = " " + " ".join(words) + " "
    hits: dict[str, list[NamedRange]] = {}
    for r in ranges:
        for w in r.words:
            phrase = " ".join(_stem(x) for x in _lemmas(w))
            if phrase and f" {phrase} " in text:
                hits.setdefault(r.attribute, []).append(r)
                break
    return [
        RangeCondition(attribute=attr, name=rs[0].name, comparator=rs[0].comparator, value=rs[0].value)
        for attr, rs in hits.items()
        if len(rs) == 1
    ]
