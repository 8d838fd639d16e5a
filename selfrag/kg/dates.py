"""Relative dates in a question ("last month", "since March", "in 2021") against an injected today.

``find_date_range`` returns a half-open ``[start, end)`` range of days (either end may be open),
or None. ``wants_latest`` tells a question asking for the newest documents first. Both are pure:
the caller passes today, so a test (or a trace) fixes the clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["DateRange", "find_date_range", "wants_latest"]

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())} | {"sept": 9})
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
_UNITS = {"day": 1, "week": 7}
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "eleven": 11, "twelve": 12}

_LATEST = re.compile(r"\b(latest|newest|most recent|recent|last few|freshest)\b", re.IGNORECASE)


@dataclass(frozen=True)
class DateRange:
    start: date | None
    """First day included; None: open."""
    end: date | None
    """First day excluded; None: open."""


def _month_start(d: date, back: int = 0) -> date:
    y, m = d.year, d.month - back
    while m <= 0:
        y, m = y - 1, m + 12
    return date(y, m, 1)


def _month(name: str) -> int:
    return _MONTHS[name]


def _next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def wants_latest(question: str) -> bool:
    """Whether the question asks for the newest first ("latest", "most recent", "newest")."""
    return _LATEST.search(question) is not None


def find_date_range(question: str, today: date) -> DateRange | None:
    """The date range a question names, relative to ``today``; None if it names none."""
    q = question.casefold()
    if m := re.search(rf"\b(?:in|during)\s+{_MONTH}\s+(\d{{4}})\b", q):
        start = date(int(m.group(2)), _month(m.group(1)), 1)
        return DateRange(start, _next_month(start))
    if m := re.search(rf"\b(since|after|from)\s+{_MONTH}(?:\s+(\d{{4}}))?\b", q):
        month = _month(m.group(2))
        year = int(m.group(3)) if m.group(3) else (today.year if month <= today.month else today.year - 1)
        start = date(year, month, 1)
        return DateRange(_next_month(start) if m.group(1) == "after" else start, None)
    if m := re.search(r"\b(since|after)\s+(\d{4})\b", q):
        year = int(m.group(2)) + (m.group(1) == "after")
        return DateRange(date(year, 1, 1), None)
    if m := re.search(r"\bbefore\s+(\d{4})\b", q):
        return DateRange(None, date(int(m.group(1)), 1, 1))
    if m := re.search(r"\b(?:in|during|from)\s+(\d{4})\b", q):
        year = int(m.group(1))
        return DateRange(date(year, 1, 1), date(year + 1, 1, 1))
    if re.search(r"\bthis\s+year\b", q):
        return DateRange(date(today.year, 1, 1), None)
    if re.search(r"\blast\s+year\b", q):
        return DateRange(date(today.year - 1, 1, 1), date(today.year, 1, 1))
    if re.search(r"\bthis\s+month\b", q):
        return DateRange(_month_start(today), None)
    if re.search(r"\blast\s+month\b", q):
        return DateRange(_month_start(today, 1), _month_start(today))
    if re.search(r"\blast\s+week\b", q):
        monday = today - timedelta(days=today.weekday())
        return DateRange(monday - timedelta(days=7), monday)
    if m := re.search(r"\b(?:past|last)\s+(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(day|week|month|year)s?\b", q):
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1)]
        unit = m.group(2)
        if unit in _UNITS:
            return DateRange(today - timedelta(days=n * _UNITS[unit]), None)
        if unit == "month":
            day = min(today.day, 28)
            back = _month_start(today, n)
            return DateRange(back.replace(day=day), None)
        return DateRange(date(today.year - n, today.month, min(today.day, 28)), None)
    if re.search(r"\byesterday\b", q):
        return DateRange(today - timedelta(days=1), today)
    if re.search(r"\btoday\b", q):
        return DateRange(today, today + timedelta(days=1))
    return None
