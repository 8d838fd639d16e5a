"""Numeric phrases for the rule-based constructor: "rated above 8.5", "between 1990 and 2000", "the 90s".

Nothing here knows about movies. Which attribute a number belongs to is decided from the
schema alone, in this order: an attribute named or described by a word next to the phrase
("rated", "pages", "price"); a year attribute when the number looks like a year or the phrase
is temporal ("after", "since"); otherwise the only numeric attribute whose type and declared
range can hold the value. When none of these singles one out, the phrase is left alone.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date

from selfrag.query._dates import find_year_phrases
from selfrag.query._text import attribute_words, is_score_attribute, is_year_attribute, stem, words
from selfrag.query.model import Comparator, Comparison
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["Found", "bare_years", "numeric_clauses"]

_NUM = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_CUES: dict[str, Comparator] = {
    "more than": "gt", "higher than": "gt", "greater than": "gt", "better than": "gt", "later than": "gt",
    "newer than": "gt", "above": "gt", "over": "gt", "after": "gt", "exceeding": "gt", "beyond": "gt",
    "at least": "gte", "no less than": "gte", "not before": "gte", "since": "gte", "starting": "gte",
    "less than": "lt", "fewer than": "lt", "lower than": "lt", "earlier than": "lt", "older than": "lt",
    "worse than": "lt", "under": "lt", "below": "lt", "before": "lt", "prior to": "lt",
    "at most": "lte", "no more than": "lte", "not after": "lte", "up to": "lte", "until": "lte", "till": "lte",
    ">=": "gte", "=>": "gte", "<=": "lte", "=<": "lte", ">": "gt", "<": "lt",
    "in": "eq", "from": "eq", "during": "eq", "of": "eq",
}  # fmt: skip
_YEAR_ONLY = {"in", "from", "during", "of"}
_TEMPORAL = {"after", "before", "since", "until", "till", "earlier than", "later than", "newer than",
             "older than", "prior to", "not before", "not after", "starting", *_YEAR_ONLY}  # fmt: skip
_CUE_RE = "|".join(re.escape(c) for c in sorted(_CUES, key=len, reverse=True))
_COMPARE = re.compile(rf"(?<!\w)(?P<cue>{_CUE_RE})\s*(?:(?:a|an|the)\s+)?(?P<num>{_NUM})(?![\d.])(?:\s*/\s*10\b|%)?", re.IGNORECASE)
_POSTFIX = re.compile(
    rf"(?<![\w.])(?P<num>{_NUM})\s*(?:\+|(?:or|and)\s+(?P<dir>more|higher|above|better|greater|later|newer|over|"
    r"up|onwards?|less|lower|below|fewer|earlier|older|worse|under)\b|(?P<on>onwards?|and\s+(?:later|after)))",
    re.IGNORECASE,
)
_BETWEEN = [
    re.compile(rf"\bbetween\s+(?P<a>{_NUM})\s+(?:and|&)\s+(?P<b>{_NUM})", re.IGNORECASE),
    re.compile(rf"\bfrom\s+(?P<a>{_NUM})\s*(?:to|until|till|through|-|–)\s*(?P<b>{_NUM})", re.IGNORECASE),
    re.compile(r"(?<![\w.])(?P<a>\d{4})\s*(?:-|–|to)\s*(?P<b>\d{4})\b", re.IGNORECASE),
]
_BEFORE_PHRASE = re.compile(r"(?:^|\s)(after|since|before|until|till|up to|prior to)\s*$", re.IGNORECASE)
_BARE_YEAR = re.compile(r"(?<![\w.,$-])(1[5-9]\d\d|20\d\d)(?![\w.,%])")
_SCORE_WORDS = {"rated", "rating", "rate", "score", "scored", "star", "stars"}
# After a number, these words leave it free to belong to the one attribute that fits; any other
# word is probably its unit ("over 2 hours") and the number is about something the schema lacks.
_CONNECTORS = {"and", "or", "but", "with", "about", "that", "which", "who", "in", "on", "from", "by", "for", "please",
               "to", "of", "the", "a", "an", "movies", "movie", "films", "film", "books", "results", "ones", "is", "are"}  # fmt: skip
_LOW = {"less", "lower", "below", "fewer", "earlier", "older", "worse", "under"}


@dataclass(frozen=True)
class Found:
    """Conditions read from one phrase, and where the phrase is."""

    clauses: tuple[Comparison, ...]
    span: tuple[int, int]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _year_like(text: str) -> bool:
    return re.fullmatch(r"\d{4}", text) is not None and 1500 <= int(text) <= 2100


def _window(question: str, start: int, end: int) -> dict[str, int]:
    """Stemmed words near a phrase, with their distance from it in words (nearest wins)."""
    near: dict[str, int] = {}
    for distance, w in enumerate(reversed(words(question[:start])[-4:]), start=1):
        near.setdefault(stem(w), distance)
    for distance, w in enumerate(words(question[end:])[:2], start=1):
        near[stem(w)] = min(distance, near.get(stem(w), distance))
    return near


def _fits(attr: AttributeInfo, value: float) -> bool:
    if attr.type == "integer" and not value.is_integer():
        return False
    return (attr.minimum is None or value >= attr.minimum) and (attr.maximum is None or value <= attr.maximum)


def _pick(schema: CollectionSchema, question: str, span: tuple[int, int], raw: str, cue: str) -> AttributeInfo | None:
    numeric = [a for a in schema.attributes if a.type in ("integer", "float")]
    years = [a for a in numeric if is_year_attribute(a)]
    value = _number(raw)
    plausible = [a for a in numeric if _fits(a, value) and (a not in years or _year_like(raw))]
    window = _window(question, *span)
    distance: dict[str, int] = {}
    for a in plausible:
        keys = attribute_words(a) | (_SCORE_WORDS if is_score_attribute(a) else set())
        hits = [window[k] for k in keys if k in window]
        if hits:
            distance[a.name] = min(hits)
    named = [a for a in plausible if a.name in distance]
    if named:
        nearest = min(distance.values())
        closest = [a for a in named if distance[a.name] == nearest]
        if len(closest) == 1:
            return closest[0]
    if len(years) == 1 and years[0] in plausible and (cue.casefold() in _TEMPORAL or not named):
        return years[0]
    if cue.casefold() in _YEAR_ONLY:
        return None
    following = words(question[span[1] :])[:1]
    if not named and following and following[0] not in _CONNECTORS:
        return None
    fitting = [a for a in (named or plausible) if a not in years]
    return fitting[0] if len(fitting) == 1 else None


def _clause(attr: AttributeInfo, comparator: Comparator, number: float) -> Comparison:
    value = float(number)
    if attr.type == "float":
        return Comparison(attribute=attr.name, comparator=comparator, value=value)
    if not value.is_integer():
        value = math.floor(value) if comparator in ("gt", "lte") else math.ceil(value)
    return Comparison(attribute=attr.name, comparator=comparator, value=int(value))


def _free(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return not any(span[0] < e and s < span[1] for s, e in taken)


def numeric_clauses(question: str, schema: CollectionSchema, today: date, taken: list[tuple[int, int]]) -> list[Found]:
    """Conditions from comparison phrases and year phrases; their spans are appended to ``taken``."""
    found: list[Found] = []

    def add(clauses: list[Comparison], span: tuple[int, int]) -> None:
        found.append(Found(tuple(clauses), span))
        taken.append(span)

    years = [a for a in schema.attributes if is_year_attribute(a)]
    for phrase in find_year_phrases(question, today) if len(years) == 1 else []:
        year, (start, end) = years[0], phrase.span
        cue = _BEFORE_PHRASE.search(question[:start])
        if cue:
            start = cue.start(1)
            comp: Comparator = _CUES[" ".join(cue.group(1).casefold().split())]
            bound = phrase.end if comp in ("gt", "lte") else phrase.start
            add([_clause(year, comp, bound)], (start, end))
        elif phrase.start == phrase.end:
            add([_clause(year, "eq", phrase.start)], (start, end))
        else:
            upper = [_clause(year, "lte", phrase.end)] if phrase.end < today.year else []
            add([_clause(year, "gte", phrase.start), *upper], (start, end))
    for pattern in _BETWEEN:
        for m in pattern.finditer(question):
            if _free(m.span(), taken) and (attr := _pick(schema, question, m.span(), m["a"], "between")):
                lo, hi = sorted((_number(m["a"]), _number(m["b"])))
                add([_clause(attr, "gte", lo), _clause(attr, "lte", hi)], m.span())
    for m in _POSTFIX.finditer(question):
        if _free(m.span(), taken) and (attr := _pick(schema, question, m.span(), m["num"], "or")):
            low = m["dir"] is not None and m["dir"].casefold() in _LOW
            add([_clause(attr, "lte" if low else "gte", _number(m["num"]))], m.span())
    for m in _COMPARE.finditer(question):
        word = " ".join(m["cue"].casefold().split())
        if word in _YEAR_ONLY and not _year_like(m["num"]):
            continue
        if _free(m.span(), taken) and (attr := _pick(schema, question, m.span(), m["num"], word)):
            add([_clause(attr, _CUES[word], _number(m["num"]))], _extend(question, m.span(), attr))
    return sorted(found, key=lambda f: f.span)


def _extend(question: str, span: tuple[int, int], attr: AttributeInfo) -> tuple[int, int]:
    """Widen a phrase to swallow the word naming its attribute ("rated above 8.5", "8 stars")."""
    keys = attribute_words(attr) | (_SCORE_WORDS if is_score_attribute(attr) else set())
    before = re.search(r"(\w+)\W{0,3}$", question[: span[0]])
    start = before.start(1) if before and stem(before.group(1)) in keys else span[0]
    after = re.match(r"\W{0,2}(\w+)", question[span[1] :])
    end = span[1] + after.end(1) if after and stem(after.group(1)) in keys else span[1]
    return start, end


def bare_years(question: str, schema: CollectionSchema, taken: list[tuple[int, int]]) -> list[Found]:
    """A year written on its own ("a 1994 movie") means that year, when there is one year attribute."""
    years = [a for a in schema.attributes if is_year_attribute(a)]
    if len(years) != 1:
        return []
    found = []
    for m in _BARE_YEAR.finditer(question):
        if _free(m.span(), taken):
            found.append(Found((_clause(years[0], "eq", float(m.group(1))),), m.span()))
            taken.append(m.span())
    return found
