"""Numeric and year conditions: "under $150k", "4.5 stars or more", "between 300 and 500 calories",
"3 or 4 star", "exactly 45 minutes", "less than 500 m", "not from the 80s", "since 2020".

Which attribute a number is about is decided from the schema profile alone, by evidence:

1. its unit or the noun after it ("two hours" → the attribute stored in minutes, converted;
   "3 bedrooms" → the attribute named bedrooms; "$" or "k" → the money attribute);
2. words near it that name an attribute or its kind ("rated", "paying", "built", "cals"); between
   attributes this leaves tied, a word near in meaning to the words only one of them has, under
   the collection's embedding model ("bought" → the year "acquired", not the year "made");
3. a four-digit year → the year attribute; a temporal cue ("since", "before") strengthens it;
4. the declared bounds and type (8 cannot be a 1–5 star class; 2.5 cannot be a bedroom count).

A number whose evidence is tied or absent is left alone: a missed condition costs less than an
invented one. So is a bare number that counts the collection's items, whatever word stands beside
it ("the cheapest 3 flights" is a limit, read by ``_limit``, not ``price == 3``), and one a noun
before it labels as a string attribute's value ("route 14 fares" is route 14, not ``fares == 14``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date

import numpy as np

from selfrag.lang import QUERY_STOP, UNITS, Token, find_year_phrases, forms, identifier_words, lemma, normalise
from selfrag.query._lexicon import CUES, DIMENSION_WORDS, FLIP, NEGATIONS, POSTFIX, YEAR_ONLY_CUES
from selfrag.query._limit import asks_count, label_before
from selfrag.query._numbers import Number
from selfrag.query._profile import AttrProfile, SchemaProfile
from selfrag.query._similar import Similarity
from selfrag.query._spans import Spans
from selfrag.query._text import plural, term_match
from selfrag.query.model import Comparator, Comparison, FilterNode, Operation

__all__ = ["Found", "compared", "numeric_conditions"]

_CUE_KEYS = sorted(CUES, key=lambda c: len(c.split()), reverse=True)
_POSTFIX_KEYS = sorted(POSTFIX, key=lambda c: len(c.split()), reverse=True)
_ARTICLES = {"a", "an", "the"}
_RANGE_JOIN = re.compile(r"^\s*(?:-|–|—|to|and|through|thru|until|till)\s*$", re.IGNORECASE)
_LIST_JOIN = re.compile(r"^\s*(?:,|,?\s*or|,?\s*and|/)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Found:
    """A condition read from one phrase of the question."""

    node: FilterNode
    span: tuple[int, int]
    attribute: str


def _clause(p: AttrProfile, comp: Comparator, value: float) -> Comparison:
    if p.attr.type == "float":
        return Comparison(attribute=p.name, comparator=comp, value=float(round(value, 6)))
    if not float(value).is_integer():
        if comp in ("eq", "ne"):
            value = round(value)
        else:
            value = math.floor(value) if comp in ("gt", "lte") else math.ceil(value)
    return Comparison(attribute=p.name, comparator=comp, value=int(value))


def _range(p: AttrProfile, lo: float, hi: float, negated: bool = False) -> FilterNode:
    lo, hi = min(lo, hi), max(lo, hi)
    if lo == hi:
        return _clause(p, "ne" if negated else "eq", lo)
    node = Operation(operator="and", arguments=[_clause(p, "gte", lo), _clause(p, "lte", hi)])
    return Operation(operator="not", arguments=[node]) if negated else node


MEANING_FLOOR = 0.6
"""Least cosine similarity between a word beside a number and a word only one of several tied
attributes has in its name or description, for that word to choose it (all-MiniLM-L6-v2:
"bought"–"acquired" 0.66, "created"–"made" 0.64; "bought"–"made" 0.42, "sold"–"acquired" 0.45)."""
MEANING_MARGIN = 0.1
"""How far the chosen attribute's closest word must lead every other tied attribute's."""


_CONJUNCTIONS = frozenset({"and", "or", "but", "nor"})


class _Reader:
    def __init__(self, question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans,
                 similarity: Similarity | None = None) -> None:  # fmt: skip
        self.q = question
        self.tokens = tokens
        self.profile = profile
        self.taken = taken
        self.sim = similarity
        self.meant: dict[str, str] = {}
        """The word that chose each attribute by meaning (``_by_meaning``): it names the attribute."""

    # -- positions -------------------------------------------------------------------------------
    def index_before(self, pos: int) -> int:
        """Index of the last token ending at or before ``pos`` (-1 if none)."""
        i = -1
        for k, t in enumerate(self.tokens):
            if t.end <= pos:
                i = k
        return i

    def index_after(self, pos: int) -> int:
        for k, t in enumerate(self.tokens):
            if t.start >= pos:
                return k
        return len(self.tokens)

    def free(self, span: tuple[int, int]) -> bool:
        return self.taken.free(span)

    # -- cues --------------------------------------------------------------------------------------
    def cue_before(self, start: int) -> tuple[str, int] | None:
        """The comparison cue written right before ``start`` (an article may sit between)."""
        i = self.index_before(start)
        if i >= 0 and self.tokens[i].norm in _ARTICLES:
            i -= 1
        for key in _CUE_KEYS:
            words = key.split()
            n = len(words)
            if i - n + 1 < 0:
                continue
            window = self.tokens[i - n + 1 : i + 1]
            if [t.norm for t in window] == words or [t.text.casefold() for t in window] == words:
                if self.free((window[0].start, window[-1].end)):
                    return key, window[0].start
        return None

    def negated_before(self, start: int, reach: int = 5, attr: AttrProfile | None = None) -> int | None:
        """Start of a negation word within ``reach`` words before ``start``, with only light words
        between ("not from the 80s", "isn't rated above 8", "do not have a cvss of 9.8"), never
        across another value or a conjunction (the negation of another condition)."""
        i = self.index_before(start)
        for k in range(i, max(-1, i - reach), -1):
            t = self.tokens[k]
            if not self.free((t.start, t.end)) or t.norm in _CONJUNCTIONS:
                return None
            if t.norm in NEGATIONS and t.norm not in ("nor",):
                return t.start
            if t.norm not in QUERY_STOP and not (attr is not None and term_match(forms(t.norm), attr.terms)):
                # Not through a verb the attribute's words do not use ("were not cited in 2022" is
                # no publication year's): the negation is left unheld, and nothing is signed.
                return None
        return None

    def postfix_after(self, end: int) -> tuple[Comparator, int] | None:
        i = self.index_after(end)
        if i < len(self.tokens) and self.q[end : self.tokens[i].start].strip(" ,") != "":
            return None
        for key in _POSTFIX_KEYS:
            words = key.split()
            window = self.tokens[i : i + len(words)]
            if len(window) == len(words) and [t.norm for t in window] == words:
                nxt = self.tokens[i + len(words)] if i + len(words) < len(self.tokens) else None
                if nxt is not None and (nxt.norm.isdigit() or nxt.text in "$€£¥"):
                    return None  # "before 1920 or after 2015": the cue of the next number, not a postfix
                return POSTFIX[key], window[-1].end
        return None

    def near(self, start: int, end: int, before: int = 4, after: int = 3) -> list[tuple[Token, int]]:
        """Free tokens around a phrase with their distance in words."""
        i, j = self.index_before(start), self.index_after(end)
        out = []
        for d, k in enumerate(range(i, max(-1, i - before), -1), start=1):
            t = self.tokens[k]
            if self.free((t.start, t.end)):
                out.append((t, d))
        for d, k in enumerate(range(j, min(len(self.tokens), j + after)), start=1):
            t = self.tokens[k]
            if self.free((t.start, t.end)):
                out.append((t, d))
        return out


def _of_records(reader: _Reader, n: Number) -> bool:
    """Whether the records' own word follows ``n`` after one or two words of their own ("one
    cancelled order", "two late standing orders"), none of them a word that ends the phrase."""
    k = reader.index_after(n.end)
    for t in reader.tokens[k:k + 3]:
        if forms(t.norm) & reader.profile.record_nouns:
            return True
        if t.norm in QUERY_STOP or not t.norm.isalpha() or any(forms(t.norm) & p.name_terms for p in reader.profile.attributes):
            return False  # ("100-level courses": a level, an attribute's own word)
    return False


def _counted(reader: _Reader, n: Number) -> Token | None:
    """The plural noun right after ``n`` when it is no unit: what the number counts ("50
    places", "3 ports")."""
    if n.unit is None or n.unit in UNITS:
        return None
    k = reader.index_after(n.end)
    tok = reader.tokens[k] if k < len(reader.tokens) else None
    # ("more than one treatment": one thing, in the singular)
    return tok if tok is not None and (plural(tok) or (n.value == 1 and tok.norm.isalpha() and tok.norm not in QUERY_STOP)) \
        and tok.lemma == n.unit else None


def _evidence(reader: _Reader, p: AttrProfile, n: Number, cue: str | None, start: int, end: int) -> float | None:
    """How strongly the number at ``start..end`` is about ``p``; None rules ``p`` out."""
    unit = UNITS.get(n.unit or "")
    unit_forms = forms(n.unit) if n.unit else frozenset()
    score = 0.0
    # "Summit frost days 2023", "2022 records": a bare year, or one before the items' own noun,
    # beside a year attribute is the year; an attribute named beside it is what is asked, not a
    # count of 2,023 frost days ("1200 pages" is still pages: its noun is no word for the items).
    items = n.unit is not None and bool(forms(n.unit) & reader.profile.item_nouns)
    if n.year_like and 1800 <= n.value <= 2100 and (cue is None or CUES.get(cue) == "eq") and unit is None \
            and not n.money and (n.unit is None or items) and any(y.fits(n.value) for y in reader.profile.years()):
        if not p.is_year:
            return None
        return 5.0 + (3 if cue in YEAR_ONLY_CUES else 0)
    if n.unit and unit is None and not n.money and forms(n.unit) & reader.profile.record_nouns:
        # "more than two permits", "more than one appointment": a number of the records themselves
        # (per applicant, per patient), no value of permit_fee or any attribute named after them.
        return None
    if unit is None and not n.money and _of_records(reader, n):
        # "more than one cancelled order": the records again, a word or two of theirs between.
        return None
    counted = _counted(reader, n)
    if counted is not None and not plural(counted) and not term_match(forms(counted.norm), p.name_terms):
        # "more than one treatment" (per patient): one thing, counted, which only an attribute
        # named after it counts ("more than one visit" of visits).
        return None
    if counted is not None and not term_match(forms(counted.norm), p.terms):
        # A number of things no word of ``p`` names is no measure in a unit ("fewer than 3 ports"
        # is no price, no rating) and fits an attribute that counts ("fewer than 50 places").
        if p.dimension is not None and not forms(counted.norm) & DIMENSION_WORDS.get(p.dimension, frozenset()):
            return None
        if p.attr.kind == "count":
            score += 2
    if n.money:
        if p.dimension != "money":
            return None
        score += 10
    if unit is not None and unit.dimension != "money":
        if p.dimension == unit.dimension or (unit.dimension == "stars" and p.dimension == "score"):
            score += 10 if p.dimension == unit.dimension else 5
        elif n.unit and term_match(unit_forms, p.name_terms):
            score += 10
        elif n.unit and p.dimension in (None, "score") and term_match(unit_forms, p.terms):
            # "over 35 degrees" of a score "in degrees Celsius": a unit its own description names.
            score += 5
        else:
            return None
    elif n.unit and term_match(unit_forms, p.name_terms):
        score += 10
    if p.is_year:
        if not n.year_like:
            return None
        score += 5 + (3 if cue in YEAR_ONLY_CUES or cue in ("older than", "newer than", "earlier than", "later than") else 0)
    elif n.year_like and score < 10:
        score -= 4
    for tok, d in reader.near(start, end):
        f = forms(tok.norm)
        if tok.norm in reader.profile.item_nouns and tok.norm.endswith("s") and not p.whole_name(tok.norm):
            # "claims paid more than $5,000": the items' own word, no word of amount_claimed (not
            # the verb of "Did CLM-20974 claim more than $10,000?"); "calories" of a recipe's
            # calories is its whole name.
            continue
        if term_match(f, p.terms):
            score += 7 - d
        elif p.dimension and (f & DIMENSION_WORDS.get(p.dimension, frozenset())):
            score += 4 - d / 2
    if n.scaled and p.dimension == "money":
        score += 2
    return score


def _convert(p: AttrProfile, n: Number, value: float) -> float:
    unit = UNITS.get(n.unit or "")
    if unit is not None and p.unit is not None and unit.dimension == p.unit.dimension and unit.dimension != "money":
        if unit.factor != p.unit.factor:
            return round(value * unit.factor / p.unit.factor, 6)
    return value


def _choose(reader: _Reader, n: Number, cue: str | None, start: int, end: int, values: list[float]) -> AttrProfile | None:
    scored: list[tuple[float, AttrProfile]] = []
    for p in reader.profile.numeric():
        s = _evidence(reader, p, n, cue, start, end)
        if s is None:
            continue
        converted = [_convert(p, n, v) for v in values]
        exact = cue is None or CUES.get(cue) == "eq"
        if not all(p.fits(v) if exact else p.in_range(v) for v in converted):
            continue
        scored.append((s, p))
    if not scored:
        return None
    scored.sort(key=lambda x: -x[0])
    best = scored[0][0]
    if len(scored) > 1 and scored[1][0] == best:
        return _by_meaning(reader, [p for s, p in scored if s == best], start, end) if best > 0 else None
    if best > 0:
        return scored[0][1]
    # No evidence at all: only a lone plausible attribute, and only for a number with a cue.
    if len(scored) == 1 and cue is not None and CUES.get(cue) != "eq" and best > -1:
        return scored[0][1]
    return None


def compared(question: str, tokens: list[Token], profile: SchemaProfile, taken: Spans, n: Number, attr: AttrProfile) -> bool:
    """Whether ``n`` is written as a bound on ``attr``: an ordering cue before it, the attribute's
    own words allowed between ("after version 5.0", "newer than 2.0"), or an ordering postfix
    after it ("2.0 or later"). A string attribute cannot be ordered (Chroma compares strings by
    equality only), so such a number is no value of it."""
    reader = _Reader(question, tokens, profile, taken)
    start = n.start
    i = reader.index_before(start)
    while i >= 0 and term_match(forms(tokens[i].norm), attr.terms):
        start, i = tokens[i].start, i - 1
    cue = reader.cue_before(start)
    post = reader.postfix_after(n.end)
    return n.plus or (cue is not None and CUES[cue[0]] != "eq") or (post is not None and post[0] != "eq")


def numeric_conditions(
    question: str, tokens: list[Token], numbers: list[Number], profile: SchemaProfile, today: date, taken: Spans,
    similarity: Similarity | None = None,
) -> list[Found]:
    """Conditions from year phrases and numbers; the spans they consume are claimed in ``taken``.
    ``similarity`` (the collection's embedding model) tells apart attributes nothing else does."""
    reader = _Reader(question, tokens, profile, taken, similarity)
    found: list[Found] = []
    years = profile.years()
    for phrase in find_year_phrases(question, today) if years else []:
        start, end = phrase.span
        attr = years[0] if len(years) == 1 else _nearest(reader, years, start, end) or _by_meaning(reader, years, start, end)
        if attr is None or not reader.free((start, end)):
            continue
        cue = reader.cue_before(start)
        neg = reader.negated_before(cue[1] if cue else start, attr=attr)
        if cue and CUES[cue[0]] != "eq":
            comp: Comparator = CUES[cue[0]]
            if neg is not None:
                comp = FLIP[comp]
            bound = phrase.end if comp in ("gt", "lte") else phrase.start
            node: FilterNode = _clause(attr, comp, bound)
            start = cue[1]
        else:
            if cue:
                start = cue[1]
            upper = phrase.end if phrase.end < today.year else None
            if neg is not None:
                node = _range(attr, phrase.start, phrase.end, negated=True)
            elif upper is None and phrase.start != phrase.end:
                node = _clause(attr, "gte", phrase.start)
            else:
                node = _range(attr, phrase.start, phrase.end)
        if neg is not None:
            start = min(start, neg)
        found.append(Found(node, (start, end), attr.name))
        taken.claim((start, end))
    for strong in (True, False):
        _numbers_pass(reader, [n for n in numbers if reader.free((n.start, n.end))], today, found, strong)
    return sorted(found, key=lambda f: f.span)


def _strong(reader: _Reader, group: list[Number]) -> bool:
    """A cue, a postfix, a unit, a currency or a range/list: evidence that does not depend on guessing."""
    last = group[-1]
    return (len(group) > 1 or reader.cue_before(group[0].start) is not None or last.plus or last.money
            or last.scaled or (last.unit in UNITS) or reader.postfix_after(_tail(reader, last)) is not None)  # fmt: skip


def _numbers_pass(reader: _Reader, pending: list[Number], today: date, found: list[Found], strong_only: bool) -> None:
    question, taken = reader.q, reader.taken
    i = 0
    while i < len(pending):
        group = [pending[i]]
        kind = "single"
        # "between A and B", "A-B", "from A to B"; "A or B", "A, B or C".
        j = i + 1
        while j < len(pending):
            between = question[_tail(reader, group[-1]) : pending[j].start]
            if len(group) == 1 and _RANGE_JOIN.match(between) and not (between.strip().casefold() == "and" and not _between_cue(reader, group[0])):
                group.append(pending[j])
                kind = "range"
                j += 1
                break
            if kind != "range" and _LIST_JOIN.match(between) and reader.cue_before(pending[j].start) is None:
                if reader.postfix_after(_tail(reader, group[-1])) is not None:
                    break
                group.append(pending[j])
                kind = "list"
                j += 1
                continue
            break
        joined = question[_tail(reader, group[0]) : group[-1].start].casefold()
        if kind == "list" and "and" in joined.split() and "or" not in joined.split():
            # "with 3 stars and 2 bathrooms" is two conditions, not a list.
            group, kind, j = [pending[i]], "single", i + 1
        if strong_only and not _strong(reader, group):
            i += 1
            continue
        made = _read_group(reader, group, kind, today)
        if made is not None:
            found.append(made)
            taken.claim(made.span)
            i = j
        else:
            i += 1


def _tail(reader: _Reader, n: Number) -> int:
    """Where a number ends with its unit: a known unit, or a noun naming a numeric attribute ("3 bedrooms")."""
    if n.unit is None:
        return n.end
    if n.unit in UNITS or any(term_match(forms(n.unit), p.name_terms) for p in reader.profile.numeric()):
        return n.unit_end
    return n.end


def _between_cue(reader: _Reader, n: Number) -> bool:
    k = reader.index_before(n.start)
    return k >= 0 and reader.tokens[k].norm in ("between", "from")


def _own_words(options: list[AttrProfile]) -> dict[str, list[str]]:
    """The content words of each attribute's name and description that none of the others has
    ("acquired", "museum" for year_acquired beside year_made: "year" and "object" tell nothing)."""
    words = {p.name: {w for w in [*identifier_words(p.name), *normalise(p.attr.description).split()]
                      if w.isalpha() and len(w) > 2 and w not in QUERY_STOP} for p in options}  # fmt: skip
    return {name: sorted(w for w in ws if not any(lemma(w) in {lemma(x) for x in others}
                                                  for other, others in words.items() if other != name))
            for name, ws in words.items()}  # fmt: skip


def _by_meaning(reader: _Reader, options: list[AttrProfile], start: int, end: int) -> AttrProfile | None:
    """Of several attributes the evidence cannot tell apart, the one a word beside the phrase is
    near in meaning to, under the collection's embedding model ("bought between 1950 and 1970":
    "bought" is near "acquired", a word of year_acquired's description alone); None without the
    model, or when no word is clearly nearer one of them (``MEANING_FLOOR``, ``MEANING_MARGIN``)."""
    if reader.sim is None or len(options) < 2:
        return None
    near = [t.norm for t, _ in reader.near(start, end) if t.norm.isalpha() and len(t.norm) > 2 and t.norm not in QUERY_STOP
            and t.norm not in NEGATIONS and t.lemma not in reader.profile.item_nouns]  # fmt: skip
    own = _own_words(options)
    columns = [w for p in options for w in own[p.name]]
    if not near or not columns:
        return None
    sims = reader.sim.matrix(list(dict.fromkeys(near)), columns)
    rows = list(dict.fromkeys(near))
    best: list[tuple[float, str, AttrProfile]] = []
    at = 0
    for p in options:
        width = len(own[p.name])
        block = sims[:, at : at + width].max(axis=1) if width else np.zeros(len(rows))
        best.append((float(block.max()), rows[int(block.argmax())], p))
        at += width
    best.sort(key=lambda x: -x[0])
    (score, word, chosen), runner_up = best[0], best[1][0]
    if score >= MEANING_FLOOR and score - runner_up >= MEANING_MARGIN:
        reader.meant[chosen.name] = word
        return chosen
    return None


def _nearest(reader: _Reader, options: list[AttrProfile], start: int, end: int) -> AttrProfile | None:
    best: tuple[int, AttrProfile] | None = None
    for tok, d in reader.near(start, end):
        for p in options:
            if term_match(forms(tok.norm), p.terms) and (best is None or d < best[0]):
                best = (d, p)
    return best[1] if best else None


def _shared_unit(group: list[Number]) -> list[Number]:
    """The last number's unit, currency and scale apply to the earlier ones ("3 or 4 star", "90 to 120k")."""
    last = group[-1]
    out = []
    for n in group[:-1]:
        value = n.value
        if last.scaled and not n.scaled and n.value * 1000 <= last.value * 10 and n.value < last.value:
            value = n.value * (last.value / _unscaled(last))
        out.append(Number(value, n.start, n.end, n.unit or last.unit, n.unit_end, n.money or last.money, n.plus,
                          n.year_like and last.year_like, n.scaled or last.scaled))
    return [*out, last]


def _unscaled(n: Number) -> float:
    for scale in (1e9, 1e6, 1e3):
        if n.value >= scale and (n.value / scale) < 1000:
            return n.value / scale
    return n.value


def _phrase(reader: _Reader, group: list[Number], kind: str) -> tuple[int, int, str | None, tuple[Comparator, int] | None]:
    """Where the phrase of a number group starts and ends, its cue before and its bound after."""
    first, last = group[0], group[-1]
    start, end = first.start, _tail(reader, last)
    cue_found = reader.cue_before(first.start)
    cue = cue_found[0] if cue_found else None
    if kind == "range" and cue in ("between", "from"):
        cue = None
    k = reader.index_before(first.start)
    if kind == "range" and k >= 0 and reader.tokens[k].norm in ("between", "from"):
        start = reader.tokens[k].start
    elif cue_found:
        start = cue_found[1]
    post = reader.postfix_after(end) if kind != "range" else None
    if post is None and last.plus:
        post = ("gte", end)
    if post is not None:
        end = max(end, post[1])
    return start, end, cue, post


def _unread(reader: _Reader, attr: AttrProfile, group: list[Number], kind: str, cue: str | None, post: object,
            start: int, end: int) -> bool:  # fmt: skip
    """A number that says too little to filter ``attr``: bare, or after a cue that fits only years.
    A bare number that counts the collection's items is a limit, even beside a word naming ``attr``
    ("the cheapest 3 flights", "the 2 cheapest flights": the word ranks the items, it gives no value)."""
    first, last = group[0], group[-1]
    bare = (kind == "single" and cue is None and post is None and last.unit not in UNITS and not last.money
            and not last.scaled and not (last.unit and term_match(forms(last.unit), attr.name_terms)))  # fmt: skip
    if bare and asks_count(reader.q, last, reader.tokens, reader.profile, reader.taken):
        return True
    if bare and not (last.year_like and attr.is_year) and not _adjacent(reader, attr, first.start, end):
        return True
    plain = kind == "single" and cue is None and post is None and last.unit not in UNITS and not last.money and not last.scaled
    if plain and _labels_a_string_value(reader, first):
        return True
    unitless = (last.unit is None or last.unit not in UNITS) and not last.money
    return (cue in YEAR_ONLY_CUES and not attr.is_year and unitless
            and cue in ("in", "of", "during", "from", "through") and not _named_near(reader, attr, start, end))  # fmt: skip


def _labels_a_string_value(reader: _Reader, n: Number) -> bool:
    """A noun right before ``n`` labels one thing by it, and the label belongs to a string
    attribute: the noun is that attribute's name ("route 14 fares") or ``n`` is one of its known
    values ("bus 62 fares"). The number is then that value, or nothing, never a quantity of the
    noun after it. Only the name counts, not a word of the description: "serves 4" is no label of
    a course "served as" a main."""
    word = label_before(reader.q, reader.tokens, n)
    if word is None:
        return False
    text = normalise(reader.q[n.start : n.end])
    return any(term_match(forms(word.norm), p.name_terms) or text in {normalise(v) for v in p.values} for p in reader.profile.strings())


def _comparator(attr: AttrProfile, cue: str | None, post: tuple[Comparator, int] | None, negated: bool) -> Comparator:
    comp: Comparator = post[0] if post is not None else CUES[cue] if cue is not None else "eq"
    if cue == "from" and post is None and attr.is_year:
        comp = "eq"  # "from 2010" names the year
    if cue in _AGE_CUES and post is None and _an_age(attr):
        comp = _AGE_CUES[cue]  # "older than 80" of an age: more years ("older than 2000" of a year is earlier)
    return FLIP[comp] if negated else comp


_AGE_CUES: dict[str, Comparator] = {"older than": "gt", "younger than": "lt"}


def _an_age(attr: AttrProfile) -> bool:
    """Whether ``attr`` is an age: "age" a word of its name or of its description's head ("age of
    the patient in years")."""
    head = re.findall(r"[a-z]+", (attr.attr.description or "").casefold())[:2]
    return not attr.is_year and attr.attr.type != "date" and (
        "age" in re.split(r"[_\W]+", attr.name.casefold()) or "age" in head)


def _read_group(reader: _Reader, group: list[Number], kind: str, today: date) -> Found | None:
    group = _shared_unit(group) if len(group) > 1 else group
    start, end, cue, post = _phrase(reader, group, kind)
    attr = _choose(reader, group[-1], cue, start, end, [n.value for n in group])
    if attr is None or _unread(reader, attr, group, kind, cue, post, start, end):
        return None
    neg = reader.negated_before(start, attr=attr)
    values = [_convert(attr, n, n.value) for n in group]
    node: FilterNode
    if kind == "range":
        node = _range(attr, values[0], values[1], negated=neg is not None)
    elif kind == "list":
        node = Comparison(attribute=attr.name, comparator="nin" if neg is not None else "in",
                          value=[_clause(attr, "eq", v).value for v in dict.fromkeys(values)])
    else:
        node = _clause(attr, _comparator(attr, cue, post, neg is not None), values[0])
    if neg is not None:
        start = min(start, neg)
    return Found(node, _widen(reader, attr, start, end), attr.name)


def _adjacent(reader: _Reader, attr: AttrProfile, start: int, end: int) -> bool:
    """An attribute word right before the number, or right after it ("serves 4", "4 people")."""
    return any(d == 1 and term_match(forms(t.norm), attr.terms) for t, d in reader.near(start, end, before=1, after=1))


def _named_near(reader: _Reader, attr: AttrProfile, start: int, end: int) -> bool:
    return any(term_match(forms(t.norm), attr.terms) for t, _ in reader.near(start, end))


def _widen(reader: _Reader, attr: AttrProfile, start: int, end: int) -> tuple[int, int]:
    """Swallow the words right next to a phrase that name its attribute ("rated", "calories", or
    the word that chose it by meaning: "bought")."""
    # Not a word that is another attribute's value as written ("awarded in 2023" of a status
    # "awarded" beside "award cycle"): that value is a condition of its own.
    values = {v.casefold() for p in reader.profile.strings() if p is not attr and p.attr.kind not in ("name", "identifier", "place")
              for v in p.values}
    i = reader.index_before(start)
    while i >= 0 and reader.tokens[i].text.casefold() not in values and (
            term_match(forms(reader.tokens[i].norm), attr.terms) or reader.tokens[i].norm == reader.meant.get(attr.name) or
            forms(reader.tokens[i].norm) & DIMENSION_WORDS.get(attr.dimension or "", frozenset())):
        start = reader.tokens[i].start
        i -= 1
    j = reader.index_after(end)
    if j < len(reader.tokens) and term_match(forms(reader.tokens[j].norm), attr.terms):
        end = reader.tokens[j].end
    return start, end

