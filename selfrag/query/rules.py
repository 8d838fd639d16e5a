"""A deterministic self-query constructor: the fallback when the LLM fails, and its referee.

It reads a question with nothing but the schema and the catalogue: numeric and year phrases
(see ``_ranges``), known values of string attributes (exact, inflected, abbreviated, a typo in
a multi-word name, or a capitalised surname), boolean attributes named in the question,
negations ("not", "excluding", "non-"), and a requested number of results. It never invents a
value: everything in its filter is written in the question, which is what makes it a useful
yardstick for the model's filter (see :func:`~selfrag.query.validate.grounding`).

Several positive values of one attribute become ``in`` (a document has one genre, so "comedies
and dramas" can only mean either); several negated ones become ``nin``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from selfrag.query._match import KnownMatch, KnownValues
from selfrag.query._ranges import Found, bare_years, numeric_clauses
from selfrag.query._text import NUMBER_WORDS, attribute_words, stem, words
from selfrag.query.model import Comparison, FilterNode, Operation, Scalar, StructuredQuery
from selfrag.schema import AttributeInfo, CollectionSchema

__all__ = ["rule_based_query"]

_TOKEN = re.compile(r"\w+(?:['’]\w+)?")
_NEGATION = re.compile(
    r"(?<!\w)(?:not|no|non|excluding|exclude|except(?:\s+for)?|other\s+than|but\s+not|without|never|"
    r"isn['’]?t|aren['’]?t|anything\s+but)(?!\w)",
    re.IGNORECASE,
)
_BRIDGE = {"a", "an", "the", "any", "by", "from", "of", "or", "and", "nor", "directed", "made", "written", "starring",
           "featuring", "with", "in", "movies", "movie", "films", "film", "books", "book", "genre", "either"}  # fmt: skip
_ITEMS = r"(?:movies|films|books|documents|articles|papers|items|results|products|songs|shows|episodes|posts|recipes|titles|options|examples|ones|picks|recommendations|suggestions)"
_NUMBER = r"(\d{1,3}|" + "|".join(re.escape(w) for w in sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"
_LIMITS = [
    re.compile(rf"\b(?:top|first|best)\s+{_NUMBER}\b", re.IGNORECASE),
    re.compile(rf"\b{_NUMBER}\s+(?:[\w-]+\s+){{0,2}}?{_ITEMS}\b", re.IGNORECASE),
    re.compile(rf"\b(?:give|show|list|recommend|suggest|find|name)\s+(?:me\s+)?{_NUMBER}\b", re.IGNORECASE),
]
_FILLER = frozenset({
    "what", "whats", "which", "who", "where", "how", "is", "are", "was", "were", "be", "been", "there",
    "any", "some", "a", "an", "the", "i", "id", "me", "my", "we", "you", "can", "could", "would", "should",
    "will", "please", "want", "wanna", "need", "like", "looking", "look", "for", "to", "watch", "see",
    "read", "find", "show", "give", "get", "recommend", "suggest", "list", "tell", "name", "search", "do",
    "does", "did", "has", "have", "had", "that", "thats", "those", "these", "this", "it", "its", "all",
    "also", "and", "or", "but", "nor", "with", "without", "about", "on", "of", "in", "from", "by",
    "directed", "made", "written", "starring", "featuring", "preferably", "ideally", "really", "very",
    "highly", "rated", "well", "top", "best", "movie", "movies", "film", "films", "book", "books",
    "document", "documents", "article", "articles", "item", "items", "result", "results", "one", "ones",
    "something", "anything", "kind", "type", "sort", "title", "titles", "options",
})
"""Words that carry no topic: stripped from the ends of the query text."""


@dataclass(frozen=True)
class _Hit:
    attr: AttributeInfo
    value: Scalar
    span: tuple[int, int]
    negated: bool = False


def _free(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return not any(span[0] < e and s < span[1] for s, e in taken)


def _indexes(schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]]) -> list[tuple[AttributeInfo, KnownValues]]:
    out = []
    for attr in schema.attributes:
        if attr.type == "string":
            source = attr.allowed_values or catalogue.get(attr.name, [])
            out.append((attr, KnownValues(v for v in source if isinstance(v, str))))
        elif attr.type == "boolean":
            name = " ".join(w for w in words(attr.name) if w not in ("is", "has", "was", "are"))
            if len(name) >= 4:
                out.append((attr, KnownValues([name])))
    return [(a, i) for a, i in out if len(i)]


def _lookup(index: KnownValues, text: str, n: int, attr: AttributeInfo) -> KnownMatch | None:
    found = index.exact(text)
    if found or attr.type == "boolean":
        return found
    if n >= 2:
        return index.abbreviation(text) or index.typo(text)
    # A lone word may be a surname, but only a capitalised one: "Kon" is a name, "kon" is noise.
    if len(text) >= 3 and text[:1].isupper():
        return index.surname(text)
    return None


def _values(question: str, indexes: list[tuple[AttributeInfo, KnownValues]], taken: list[tuple[int, int]]) -> list[_Hit]:
    tokens = [m.span() for m in _TOKEN.finditer(question)]
    longest = max((i.max_words for _, i in indexes), default=0)
    hits: list[_Hit] = []
    i = 0
    while i < len(tokens):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            span = (tokens[i][0], tokens[i + n - 1][1])
            text = question[span[0] : span[1]]
            if not _free(span, taken):
                continue
            hit = next(((a, m) for a, idx in indexes if (m := _lookup(idx, text, n, a))), None)
            if hit is not None:
                value: Scalar = True if hit[0].type == "boolean" else hit[1].value
                hits.append(_Hit(hit[0], value, span))
                taken.append(span)
                i += n - 1
                break
        i += 1
    return hits


def _negate(question: str, hits: list[_Hit], taken: list[tuple[int, int]]) -> list[_Hit]:
    """Mark hits governed by a negation cue.

    A cue carries over a list of values of the same attribute ("not X, Y or Z"), but not over
    a value of another attribute ("not a comedy, by Besson" still wants Besson).
    """
    cues = [m.span() for m in _NEGATION.finditer(question) if _free(m.span(), taken)]
    out: list[_Hit] = []
    previous: _Hit | None = None  # the last negated hit, while a negation is in force
    for hit in hits:
        floor = previous.span[1] if previous else -1
        fresh = [c for c in cues if floor <= c[0] and c[1] <= hit.span[0]]
        anchor = fresh[-1][1] if fresh else floor if previous and previous.attr.name == hit.attr.name else None
        if anchor is not None and all(w in _BRIDGE for w in words(question[anchor : hit.span[0]])):
            out.append(_Hit(hit.attr, False if hit.attr.type == "boolean" else hit.value, hit.span, True))
            if fresh:
                taken.append(fresh[-1])
            previous = out[-1]
        else:
            out.append(hit)
            previous = None
    return out


def _group(hits: list[_Hit]) -> list[Found]:
    groups: dict[tuple[str, bool], list[_Hit]] = {}
    for hit in hits:
        negated = hit.negated and hit.attr.type != "boolean"
        groups.setdefault((hit.attr.name, negated), []).append(hit)
    found = []
    for (name, negated), group in groups.items():
        values = list(dict.fromkeys(h.value for h in group))
        if len(values) == 1:
            clause = Comparison(attribute=name, comparator="ne" if negated else "eq", value=values[0])
        else:
            clause = Comparison(attribute=name, comparator="nin" if negated else "in", value=values)
        found.append(Found((clause,), group[0].span))
    return found


def _limit(question: str, taken: list[tuple[int, int]]) -> int | None:
    for pattern in _LIMITS:
        for m in pattern.finditer(question):
            if _free(m.span(1), taken):
                token = m.group(1).casefold()
                n = int(token) if token.isdigit() else NUMBER_WORDS[" ".join(token.split())]
                if 0 < n <= 100:
                    taken.append(m.span() if pattern is _LIMITS[0] else m.span(1))
                    return n
    return None


def _query_text(question: str, taken: list[tuple[int, int]], used: list[AttributeInfo]) -> str:
    # Words describing a filtered attribute ("released" for a year) carry no topic either.
    filler = _FILLER.union(*(attribute_words(a) for a in used))
    kept = list(question)
    for s, e in taken:
        kept[s:e] = [" "] * (e - s)
    tokens = _TOKEN.findall("".join(kept))
    folded = [words(t)[0] if words(t) else "" for t in tokens]
    lo, hi = 0, len(tokens)
    while lo < hi and (folded[lo] in filler or stem(folded[lo]) in filler):
        lo += 1
    while hi > lo and (folded[hi - 1] in filler or stem(folded[hi - 1]) in filler):
        hi -= 1
    return " ".join(tokens[lo:hi]) or " ".join(question.split())


def rule_based_query(
    question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], *, today: date
) -> StructuredQuery:
    """Read ``question`` into a structured query using only ``schema`` and ``catalogue``.

    The filter holds only conditions stated in the question (ANDed in the order they appear);
    the query text is the question minus those phrases and conversational filler, and falls back
    to the whole question rather than ever being empty.
    """
    taken: list[tuple[int, int]] = []
    numeric = numeric_clauses(question, schema, today, taken)
    hits = _negate(question, _values(question, _indexes(schema, catalogue), taken), taken)
    numeric += bare_years(question, schema, taken)
    limit = _limit(question, taken)
    found = sorted(numeric + _group(hits), key=lambda f: f.span)
    parts = [c for f in found for c in f.clauses]
    node: FilterNode | None = None if not parts else parts[0] if len(parts) == 1 else Operation(operator="and", arguments=list(parts))
    used = [a for a in schema.attributes if any(c.attribute == a.name for c in parts)]
    return StructuredQuery(query=_query_text(question, taken, used), filter=node, limit=limit)
