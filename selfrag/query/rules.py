"""The rule-based self-query constructor: a question read against a schema, with no model.

Everything it knows about the collection comes from the declared schema and the catalogue of
known values (see ``_profile``): nothing here names a domain. In order:

1. numbers and year phrases become conditions on the numeric attribute their unit, cue words and
   declared range point to (``_numeric``);
2. words naming a value become conditions on string and boolean attributes, negation applied
   (``_values``): known values, boolean attribute names, embedding similarity under the
   collection's own model (when given), and unknown proper names for name-like attributes;
3. a requested number of results becomes the limit ("show me 5", "three dramas", "top 3");
4. the search text is the question minus the phrases consumed by conditions and the filler at
   its ends ("show me", "recipes", "please"), and never empty.

It never invents a value: every condition is written in the question, which is also what makes
it a yardstick for a model's filter (see :func:`~selfrag.query.validate.grounding`). Several
positive values of one attribute become ``in`` (a document has one cuisine, so "Thai or Chinese"
and "Thai and Chinese dishes" both mean either); negated ones become ``nin``. Two bounds on one
attribute joined by "or" ("before 1920 or after 2015") become an ``or``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date

from langchain_core.embeddings import Embeddings

from selfrag.lang import QUERY_STOP, UNITS, Token, forms, tokenize, word_set
from selfrag.query._lexicon import NEGATIONS
from selfrag.query._numbers import Number, find_numbers
from selfrag.query._numeric import Found, numeric_conditions
from selfrag.query._profile import SchemaProfile
from selfrag.query._similar import Similarity
from selfrag.query._spans import Spans
from selfrag.query._text import term_match
from selfrag.query._values import Mention, find_mentions
from selfrag.query.model import Comparison, FilterNode, Operation, Scalar, StructuredQuery
from selfrag.schema import CollectionSchema

__all__ = ["Reading", "read_question", "rule_based_query"]

_LIMIT_VERBS = word_set("limit_verbs")
_LIMIT_LEADS = word_set("limit_leads")
_MAX_LIMIT = 100


class Reading:
    """What the constructor read from one question: the structured query and the consumed spans."""

    def __init__(self, query: StructuredQuery, consumed: list[tuple[int, int]], notes: list[str],
                 residual: str = "") -> None:
        self.query = query
        self.consumed = consumed
        """Character spans of the question that became conditions or the limit."""
        self.notes = notes
        """How each value was linked ("cuisine: 'veggie' → vegetarian (embedding 0.81)")."""
        self.residual = residual
        """What is left of the question once its conditions, its limit and the words naming the
        collection's items are taken out: "" when the filter holds all of it ("3 bedroom houses
        under 500k"), whereupon ``query.query`` searches the question as asked."""


def _led(before: list[Token]) -> bool:
    """ "top 5", "show me 5", "list 5": the words before a number ask for that many results."""
    if not before:
        return False
    last = before[-1].norm
    return last in _LIMIT_LEADS or last in _LIMIT_VERBS or (
        len(before) >= 2 and last in ("me", "us") and before[-2].norm in _LIMIT_VERBS
    )


def _counts_results(after: list[Token], profile: SchemaProfile, taken: Spans) -> bool:
    """The words after a number name the collection's items ("5 recipes"), not a quantity ("3 bedrooms")."""
    for t in after:
        if t.norm.isdigit() or t.lemma in UNITS or any(term_match(forms(t.norm), p.name_terms) for p in profile.numeric()):
            return False
        plural = t.norm.isalpha() and t.norm not in QUERY_STOP and len(t.norm) > 3 and t.norm.endswith("s") and t.lemma != t.norm
        if t.lemma in profile.item_nouns or plural:
            return True
        if taken.free((t.start, t.end)) and t.norm not in QUERY_STOP and not t.norm.isalpha():
            return False
    return False


def _limit(question: str, tokens: list[Token], numbers: list[Number], profile: SchemaProfile, taken: Spans) -> int | None:
    for n in numbers:
        if not taken.free((n.start, n.end)) or n.money or n.scaled or n.year_like or not n.value.is_integer():
            continue
        if not 0 < n.value <= _MAX_LIMIT:
            continue
        before = [t for t in tokens if t.end <= n.start][-3:]
        lead = _led(before)
        if lead or _counts_results([t for t in tokens if t.start >= n.end][:4], profile, taken):
            taken.claim((before[-1].start if lead and before[-1].norm in _LIMIT_LEADS else n.start, n.end))
            return int(n.value)
    return None


def _mention_nodes(mentions: list[Mention]) -> list[Found]:
    groups: dict[tuple[str, bool], list[Mention]] = {}
    booleans: dict[str, Mention] = {}
    for m in mentions:
        if m.attr.attr.type == "boolean":
            booleans[m.attr.name] = m  # the last word on a yes/no attribute wins
            continue
        groups.setdefault((m.attr.name, m.negated), []).append(m)
    found = []
    for (name, negated), group in groups.items():
        values: list[Scalar] = list(dict.fromkeys(m.value for m in group))
        clause = (
            Comparison(attribute=name, comparator="ne" if negated else "eq", value=values[0])
            if len(values) == 1
            else Comparison(attribute=name, comparator="nin" if negated else "in", value=values)
        )
        found.append(Found(clause, group[0].span, name))
    for name, m in booleans.items():
        found.append(Found(Comparison(attribute=name, comparator="eq", value=m.value), m.span, name))
    return found


def _join(question: str, found: list[Found]) -> list[FilterNode]:
    """Conditions in question order; two on one attribute joined by "or" become one ``or``."""
    out: list[tuple[Found, FilterNode]] = []
    for f in sorted(found, key=lambda f: f.span):
        if out:
            prev, node = out[-1]
            between = question[prev.span[1] : f.span[0]].casefold()
            if prev.attribute == f.attribute and re.fullmatch(r"[\s,]*(?:or|either|,)\s*(?:\w+\s+)?", between) and "or" in between.split():
                args = [*(node.arguments if isinstance(node, Operation) and node.operator == "or" else [node]), f.node]
                out[-1] = (Found(f.node, (prev.span[0], f.span[1]), f.attribute), Operation(operator="or", arguments=args))
                continue
        out.append((f, f.node))
    return [node for _, node in out]


def _residual(tokens: list[Token], taken: Spans, profile: SchemaProfile, used: set[str]) -> str:
    filler = frozenset(QUERY_STOP) | profile.item_nouns
    terms = [profile.by_name[name].terms for name in used]

    def is_filler(t: Token) -> bool:
        f = forms(t.norm)
        return bool(f & filler) or t.norm in NEGATIONS or any(term_match(f, ts) for ts in terms)

    kept = [t for t in tokens if taken.free((t.start, t.end)) and t.text not in "$€£¥%+<>=≤≥"]
    lo, hi = 0, len(kept)
    while lo < hi and is_filler(kept[lo]):
        lo += 1
    while hi > lo and is_filler(kept[hi - 1]):
        hi -= 1
    return " ".join(t.text for t in kept[lo:hi])


def read_question(
    question: str,
    schema: CollectionSchema,
    catalogue: Mapping[str, Sequence[str]],
    *,
    today: date,
    embeddings: Embeddings | None = None,
) -> Reading:
    """Read ``question`` into a structured query, keeping what was consumed (see the module docstring)."""
    profile = SchemaProfile(schema, catalogue)
    tokens = tokenize(question)
    taken = Spans()
    numbers = find_numbers(question)
    numeric = numeric_conditions(question, tokens, numbers, profile, today, taken)
    similarity = Similarity(embeddings) if embeddings is not None else None
    mentions = find_mentions(question, tokens, profile, taken, similarity)
    limit = _limit(question, tokens, numbers, profile, taken)
    parts = _join(question, numeric + _mention_nodes(mentions))
    node: FilterNode | None = None if not parts else parts[0] if len(parts) == 1 else Operation(operator="and", arguments=parts)
    used = {f.attribute for f in numeric} | {m.attr.name for m in mentions}
    notes = [f"{m.attr.name}: {question[m.span[0]:m.span[1]]!r} → {m.value!r} ({m.how})" for m in mentions if m.how not in ("exact",)]
    residual = _residual(tokens, taken, profile, used)
    text = residual or " ".join(question.split())
    return Reading(StructuredQuery(query=text, filter=node, limit=limit), taken.in_order(), notes, residual)


def rule_based_query(
    question: str,
    schema: CollectionSchema,
    catalogue: Mapping[str, Sequence[str]],
    *,
    today: date,
    embeddings: Embeddings | None = None,
) -> StructuredQuery:
    """Read ``question`` into a structured query using only ``schema`` and ``catalogue``.

    ``embeddings`` (the collection's own model) lets words link to known values by meaning; without
    it only spelling links them. The query text is never empty.
    """
    return read_question(question, schema, catalogue, today=today, embeddings=embeddings).query
