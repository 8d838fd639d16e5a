"""Relative dates in a question, against an injected today (never the clock, so a plan replays).

Two readings of one vocabulary (months, number words, "last"/"past"/"this"):

- ``find_date_range``: the days a question names ("last month", "since March", "in 2021"), as a
  half-open ``[start, end)`` range (either end open). Date attributes and graph relations use it.
- ``find_year_phrases`` / ``resolve_year_value``: the calendar years a phrase names ("the 90s",
  "in the past 5 years", "2 years ago"), as an inclusive range. Year attributes use it; "the last
  N years" includes the current year and the N before it, which errs on the side of recall.

``wants_latest`` tells a question asking for the newest documents first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from selfrag.lang.numbers import NUMBER_WORDS

__all__ = ["MONTHS", "DateRange", "YearSpan", "find_date_range", "find_date_ranges", "find_year_phrases", "resolve_year_value",
           "wants_latest"]

_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]  # fmt: skip
MONTHS: dict[str, int] = {m: i for i, m in enumerate(_MONTH_NAMES, 1)} | {m[:3]: i for i, m in enumerate(_MONTH_NAMES, 1)} | {"sept": 9}
"""Month names and their abbreviations, to the month's number."""
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_COUNT = r"(\d{1,3}|a|" + "|".join(NUMBER_WORDS) + ")"
_LATEST = re.compile(r"\b(latest|newest|most recent|recent|last few|freshest)\b", re.IGNORECASE)


def _count(token: str) -> int:
    t = token.casefold()
    return int(t) if t.isdigit() else 1 if t == "a" else NUMBER_WORDS[t]


@dataclass(frozen=True)
class DateRange:
    start: date | None
    """First day included; None: open."""
    end: date | None
    """First day excluded; None: open."""
    span: tuple[int, int] | None = None
    """Character offsets of the phrase that named it, in the text it was found in."""


def _month_start(d: date, back: int = 0) -> date:
    y, m = d.year, d.month - back
    while m <= 0:
        y, m = y - 1, m + 12
    return date(y, m, 1)


def _next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def wants_latest(question: str) -> bool:
    """Whether the question asks for the newest first ("latest", "most recent", "newest")."""
    return _LATEST.search(question) is not None


def _last_n(n: int, unit: str, today: date) -> DateRange:
    if unit in ("day", "week"):
        return DateRange(today - timedelta(days=n * (7 if unit == "week" else 1)), None)
    if unit == "month":
        return DateRange(_month_start(today, n).replace(day=min(today.day, 28)), None)
    return DateRange(date(today.year - n, today.month, min(today.day, 28)), None)


def find_date_range(question: str, today: date) -> DateRange | None:
    """The date range a question names, relative to ``today``, with the span of the phrase that
    names it; None if it names none."""
    for reader in _DATE_READERS:
        if (found := reader(question, today)) is not None:
            return found
    return None


def find_date_ranges(question: str, today: date, *, most: int = 3) -> list[DateRange]:
    """Every date range ``question`` names (at most ``most``), in the order it writes them: each
    phrase read is blanked out before the next is looked for ("published in 2022 and patched in
    2023" names two)."""
    found: list[DateRange] = []
    text = question
    while len(found) < most and (r := find_date_range(text, today)) is not None:
        found.append(r)
        if r.span is None:
            break
        a, b = r.span
        text = text[:a] + " " * (b - a) + text[b:]
    return sorted(found, key=lambda r: r.span or (0, 0))


def _search(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.IGNORECASE)


# "in 2023 or later", "in March 2023 and after", "in 2022 or earlier": open at one end.
_LATER = r"(?:\s*,?\s+(?:or|and)\s+(?P<open>later|after|since|onwards?|beyond|earlier|before|prior))?"


def _open_ended(start: date, end: date, m: re.Match[str]) -> DateRange:
    side = (m.group("open") or "").casefold()
    if side in ("earlier", "before", "prior"):
        return DateRange(None, end, m.span())
    return DateRange(start, None if side else end, m.span())


_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
# A day as written: ISO ("2024-06-01"), month first ("June 1, 2024", "Jun 1st 2024") or day first
# ("1 June 2024", "the 3rd of March 2023"); the year may be left to the reader (below).
_DAY = (rf"(?:(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})\b"
        rf"|{_MONTH}\s+{_ORD}\b(?:,?\s+(?P<y1>\d{{4}})\b)?"
        rf"|(?:the\s+)?{_ORD}(?:\s+of)?\s+{_MONTH}\b(?:,?\s+(?P<y2>\d{{4}})\b)?)")


def _day_of(m: re.Match[str], today: date, year: int | None = None) -> date | None:
    """The day ``m`` (a match of ``_DAY`` whose groups are numbered from 1) writes; without a year,
    ``year``, else the last such day on or before today. None for no such day ("June 31")."""
    groups = m.groups()
    try:
        if groups[0]:
            return date.fromisoformat(groups[0])
        if groups[1]:
            month, day, y = MONTHS[groups[1].casefold()], int(groups[2]), groups[3]
        else:
            day, month, y = int(groups[4]), MONTHS[groups[5].casefold()], groups[6]
        if y is None and year is None:
            found = date(today.year, month, day)
            return found if found <= today else date(today.year - 1, month, day)
        return date(int(y) if y is not None else year, month, day)  # type: ignore[arg-type]
    except ValueError:
        return None


def _day(q: str, today: date) -> DateRange | None:
    """A date written to the day, after what says which days it bounds: "after" (from the next day),
    "since", "from", "on or after" (from it), "before" (to it), "until", "through", "on or
    before" (to the next day), "between … and …", or nothing ("on June 1, 2024": that day)."""
    # Not the verb "may" ("may 2 officers …"): a month written in lower case is "may" alone.
    matches = [m for m in re.finditer(_DAY, q, re.IGNORECASE) if m.group(2) != "may" and m.group(6) != "may"]
    for i, m in enumerate(matches):
        nxt = matches[i + 1] if i + 1 < len(matches) else None
        lead = re.search(r"\bbetween\s+$", q[: m.start()], re.IGNORECASE)
        if lead and nxt is not None and re.fullmatch(r"\s+and\s+", q[m.end() : nxt.start()]):
            last = _day_of(nxt, today)
            first = _day_of(m, today, last.year if last is not None and m.group(4) is None and m.group(7) is None else None)
            if first is not None and last is not None and first <= last:
                return DateRange(first, last + timedelta(days=1), (lead.start(), nxt.end()))
        # A day without its year takes the one year the question names elsewhere ("Which 2021
        # races were certified on November 19?"), else the last such day.
        years = set() if m.group(1) or m.group(4) or m.group(7) else set(
            re.findall(r"\b(1[89]\d\d|20\d\d)\b", q[: m.start()] + " " + q[m.end():]))
        day = _day_of(m, today, int(years.pop()) if len(years) == 1 else None)
        if day is None:
            continue
        bound = re.search(r"\b(on\s+or\s+after|on\s+or\s+before|after|since|from|starting|before|until|till|through|by|on)\s+$",
                          q[: m.start()], re.IGNORECASE)
        word = re.sub(r"\s+", " ", bound.group(1).casefold()) if bound else ""
        span = (bound.start() if bound else m.start(), m.end())
        if word == "after":
            return DateRange(day + timedelta(days=1), None, span)
        if word in ("since", "from", "starting", "on or after"):
            return DateRange(day, None, span)
        if word == "before":
            return DateRange(None, day, span)
        if word in ("until", "till", "through", "by", "on or before"):
            return DateRange(None, day + timedelta(days=1), span)
        return DateRange(day, day + timedelta(days=1), span)
    return None


def _month_year(q: str, today: date) -> DateRange | None:
    if m := _search(rf"\b(?:in|during)\s+{_MONTH}\s+(\d{{4}})\b{_LATER}", q):
        start = date(int(m.group(2)), MONTHS[m.group(1).casefold()], 1)
        return _open_ended(start, _next_month(start), m)
    if m := _search(rf"\b(since|after|from)\s+{_MONTH}(?:\s+(\d{{4}}))?\b", q):
        month = MONTHS[m.group(2).casefold()]
        year = int(m.group(3)) if m.group(3) else (today.year if month <= today.month else today.year - 1)
        start = date(year, month, 1)
        return DateRange(_next_month(start) if m.group(1).casefold() == "after" else start, None, m.span())
    if m := _search(rf"\b(before|until)\s+{_MONTH}\s+(\d{{4}})\b", q):
        start = date(int(m.group(3)), MONTHS[m.group(2).casefold()], 1)
        return DateRange(None, start if m.group(1).casefold() == "before" else _next_month(start), m.span())
    return None


def _year(q: str, today: date) -> DateRange | None:
    if m := _search(r"\b(since|after)\s+(\d{4})\b", q):
        return DateRange(date(int(m.group(2)) + (m.group(1).casefold() == "after"), 1, 1), None, m.span())
    if m := _search(r"\bbefore\s+(\d{4})\b", q):
        return DateRange(None, date(int(m.group(1)), 1, 1), m.span())
    if m := _search(r"\b(?:in|during|from)\s+(\d{4})\b" + _LATER, q):
        year = int(m.group(1))
        return _open_ended(date(year, 1, 1), date(year + 1, 1, 1), m)
    return None


def _relative(q: str, today: date) -> DateRange | None:
    monday = today - timedelta(days=today.weekday())
    fixed: list[tuple[str, DateRange]] = [
        (r"\bthis\s+year\b", DateRange(date(today.year, 1, 1), None)),
        (r"\blast\s+year\b", DateRange(date(today.year - 1, 1, 1), date(today.year, 1, 1))),
        (r"\bthis\s+month\b", DateRange(_month_start(today), None)),
        (r"\blast\s+month\b", DateRange(_month_start(today, 1), _month_start(today))),
        (r"\blast\s+week\b", DateRange(monday - timedelta(days=7), monday)),
    ]
    for pattern, found in fixed:
        if m := _search(pattern, q):
            return DateRange(found.start, found.end, m.span())
    if m := _search(rf"\b(?:past|last)\s+{_COUNT}\s+(day|week|month|year)s?\b", q):
        n = _last_n(_count(m.group(1)), m.group(2).casefold(), today)
        return DateRange(n.start, n.end, m.span())
    if m := _search(r"\byesterday\b", q):
        return DateRange(today - timedelta(days=1), today, m.span())
    if m := _search(r"\btoday\b", q):
        return DateRange(today, today + timedelta(days=1), m.span())
    return None


# In order: a day, then a month with its year, before a bare year, all before the relative phrases.
_DATE_READERS = (_day, _month_year, _year, _relative)


_DECADE_WORDS = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
    "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip
_LEAD = r"\b(?:(?:in|from|during|over|within)\s+)?(?:the\s+)?"
_YEAR_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("decade", re.compile(r"\b(?:(?:in|from|during)\s+)?(?:the\s+)?(?:early\s+|late\s+|mid\s+)?['’]?(\d{2}|\d{4})['’]?s\b", re.IGNORECASE)),
    ("decade_word", re.compile(r"\b(?:(?:in|from|during)\s+)?(?:the\s+)?(" + "|".join(_DECADE_WORDS) + r")\b", re.IGNORECASE)),
    ("last_n", re.compile(_LEAD + r"(?:last|past|previous)\s+" + _COUNT + r"\s+years?\b", re.IGNORECASE)),
    ("last_decade", re.compile(_LEAD + r"(?:last|past|previous)\s+decade\b", re.IGNORECASE)),
    ("ago", re.compile(r"\b" + _COUNT + r"\s+years?\s+ago\b", re.IGNORECASE)),
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
    for kind, pattern in _YEAR_PATTERNS:
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
