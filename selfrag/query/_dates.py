"""Relative and fuzzy year phrases: "the 90s", "last year", "in the past 5 years", "2 years ago".

The LLM tends to copy such phrases into a filter value and the rules must turn them into
numbers, so both go through here and agree on the one convention: a phrase becomes an inclusive
range of calendar years resolved against *today* (passed in, never read from the clock, so a
plan is reproducible). "The last N years" includes the current year and the N before it, which
errs on the side of recall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from selfrag.query._text import NUMBER_WORDS

__all__ = ["YearSpan", "find_year_phrases", "resolve_year_value"]

_NUM = r"(\d{1,3}|" + "|".join(w for w in NUMBER_WORDS if " " not in w) + ")"
_DECADE_WORDS = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
    "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("decade", re.compile(r"\b(?:(?:in|from|during)\s+)?(?:the\s+)?(?:early\s+|late\s+|mid\s+)?['’]?(\d{2}|\d{4})['’]?s\b", re.IGNORECASE)),
    ("decade_word", re.compile(r"\b(?:(?:in|from|during)\s+)?(?:the\s+)?(" + "|".join(_DECADE_WORDS) + r")\b", re.IGNORECASE)),
    ("last_n", re.compile(r"\b(?:(?:in|from|during|over|within)\s+)?(?:the\s+)?(?:last|past|previous)\s+" + _NUM + r"\s+years?\b", re.IGNORECASE)),
    ("last_decade", re.compile(r"\b(?:(?:in|from|during|over|within)\s+)?(?:the\s+)?(?:last|past|previous)\s+decade\b", re.IGNORECASE)),
    ("ago", re.compile(r"\b" + _NUM + r"\s+years?\s+ago\b", re.IGNORECASE)),
    ("this_year", re.compile(r"\b(?:(?:from|in)\s+)?(?:this|the\s+current)\s+year\b", re.IGNORECASE)),
    ("last_year", re.compile(r"\b(?:(?:from|in)\s+)?last\s+year\b", re.IGNORECASE)),
    ("next_year", re.compile(r"\b(?:(?:from|in)\s+)?next\s+year\b", re.IGNORECASE)),
]


@dataclass(frozen=True)
class YearSpan:
    """A year phrase found in text, as the inclusive range of years it means."""

    start: int
    end: int
    """Inclusive; ``start == end`` for a single year."""
    span: tuple[int, int]
    """Character offsets of the phrase in the text it was found in."""


def _count(token: str) -> int:
    return int(token) if token.isdigit() else NUMBER_WORDS[token.casefold()]


def _decade_start(digits: str, today: date) -> int | None:
    n = int(digits)
    if len(digits) == 4:
        return n if n % 10 == 0 else None
    if n % 10:
        return None
    # "the 20s" means the 2020s once we are past them, the 1920s before.
    return 2000 + n if 2000 + n <= today.year else 1900 + n


def _resolve(kind: str, m: re.Match[str], today: date) -> tuple[int, int] | None:
    y = today.year
    if kind == "decade":
        start = _decade_start(m.group(1), today)
        return (start, start + 9) if start is not None else None
    if kind == "decade_word":
        tens = _DECADE_WORDS[m.group(1).casefold()]
        start = 2000 + tens if 2000 + tens <= y else 1900 + tens
        return (start, start + 9)
    if kind == "last_n":
        return (y - _count(m.group(1)), y)
    if kind == "last_decade":
        return (y - 10, y)
    if kind == "ago":
        return (y - _count(m.group(1)),) * 2
    return {"this_year": (y, y), "last_year": (y - 1, y - 1), "next_year": (y + 1, y + 1)}[kind]


def find_year_phrases(text: str, today: date) -> list[YearSpan]:
    """Every non-overlapping year phrase in ``text``, in order of appearance."""
    found: list[YearSpan] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            resolved = _resolve(kind, m, today)
            if resolved is not None:
                found.append(YearSpan(resolved[0], resolved[1], (m.start(), m.end())))
                taken.append((m.start(), m.end()))
    return sorted(found, key=lambda ys: ys.span)


def resolve_year_value(value: str, today: date) -> tuple[int, int] | None:
    """A filter value that is wholly a year phrase ("last year", "1990s"), as an inclusive range."""
    text = value.strip()
    phrases = find_year_phrases(text, today)
    if len(phrases) == 1 and phrases[0].span == (0, len(text)):
        return (phrases[0].start, phrases[0].end)
    return None
