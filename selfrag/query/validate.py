"""Validation: make any structured query (the LLM's or the rules') safe and faithful to the schema.

The LLM writes filters the store would reject or silently mis-evaluate: attributes that do not
exist, ``"2019"`` for an integer, a lone value for ``in``, "Christopher nolan" for a stored
"Christopher Nolan", ``and`` with one argument. Rather than reject the whole query (and lose the
part that was right), each problem is repaired or the offending clause is dropped, and every
such decision is recorded as a :class:`~selfrag.query.model.Change` for the trace.

``validate_query`` never raises on model output: junk becomes ``usable=False``. The caller's
own filters go through :func:`parse_where` instead, which does raise, because a caller's mistake
should be reported, not guessed around. :func:`grounding` is re-exported here since it is the
other half of deciding whether a validated filter can be trusted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import BaseModel

from selfrag.query._grounding import clauses, grounding
from selfrag.query._numbers import find_numbers
from selfrag.query._present import held_where_present, needed_by_negation
from selfrag.query._repair import Repairer
from selfrag.query._satisfy import make_satisfiable
from selfrag.query._where import parse_where
from selfrag.query.model import Change, FilterNode, StructuredQuery
from selfrag.schema import CollectionSchema

__all__ = ["Validated", "grounding", "parse_where", "validate_query"]


@dataclass(frozen=True)
class Validated:
    """The outcome of validating one structured query."""

    query: StructuredQuery
    """The repaired query: known attributes only, declared types, Chroma-safe values."""
    changes: list[Change] = field(default_factory=list)
    """Every repair and every dropped clause, in the order they were made."""
    usable: bool = True
    """False when the input was unparseable, or has neither query text nor a filter."""
    negated: tuple[str, ...] = ()
    """Attributes a negated condition of the filter needs (``_present.needed_by_negation``)."""


def _unpack(sq: object) -> tuple[object, object, object] | None:
    """(query, filter, limit) from a StructuredQuery, a mapping, or JSON text; None if none of those."""
    if isinstance(sq, str):
        try:
            sq = json.loads(sq)
        except ValueError:
            return None
    if isinstance(sq, StructuredQuery):
        return getattr(sq, "query", None), getattr(sq, "filter", None), getattr(sq, "limit", None)
    if isinstance(sq, BaseModel):
        sq = sq.model_dump()
    if isinstance(sq, Mapping):
        return sq.get("query"), sq.get("filter"), sq.get("limit")
    return None


def _limit(raw: object, max_limit: int, changes: list[Change]) -> int | None:
    if raw is None:
        return None
    value: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():
        value = int(raw)
    elif isinstance(raw, str) and raw.strip().isascii() and raw.strip().isdigit():
        value = int(raw.strip())
    if value is None or value <= 0:
        changes.append(Change(kind="clamped_limit", detail=f"limit {raw!r} ignored: not a positive integer"))
        return None
    if value > max_limit:
        changes.append(Change(kind="clamped_limit", detail=f"limit {value} clamped to {max_limit}"))
        return max_limit
    return value


def _grounded_limit(limit: object, question: str | None, changes: list[Change]) -> object:
    """``limit`` if the question states that number ("top 5", "three films"; a year does not
    count), else None. Checked before clamping: the question's number, not the clamped one.

    A limit narrows what is retrieved and graded, so like every filter condition it must come from
    the question: a model that proposes ``limit 20`` for a question asking for no count would
    otherwise make the run grade twenty documents.
    """
    if limit is None or question is None:
        return limit
    try:
        value = float(limit)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return limit  # not a number: _limit says so
    if any(n.value == value and not n.year_like for n in find_numbers(question)):
        return limit
    changes.append(Change(kind="ungrounded_limit", detail=f"limit {limit} dropped: the question asks for no such number"))
    return None


def _query_text(raw: object) -> str:
    if raw is None:
        return ""
    text = raw if isinstance(raw, str) else str(raw)
    return " ".join(text.split())


def validate_query(
    sq: StructuredQuery | Mapping[str, Any] | str | None,
    schema: CollectionSchema,
    catalogue: Mapping[str, Sequence[str]],
    *,
    today: date,
    max_limit: int = 50,
    question: str | None = None,
) -> Validated:
    """Repair ``sq`` against ``schema`` and the known values in ``catalogue``.

    Args:
        sq: the structured query; a mapping or JSON text is accepted too, since a model's raw
            output may not have passed pydantic validation.
        schema: the collection's declared attributes.
        catalogue: known values per string attribute, matched case-insensitively and fuzzily.
        today: the date relative phrases ("last year") are resolved against.
        max_limit: the largest ``limit`` allowed; larger ones are clamped.
        question: the question the query was made from; lets a contradiction such as
            ``year eq 2019 and year eq 2021`` become ``year in [2019, 2021]`` when it says "or",
            and drops a ``limit`` whose number the question does not state.

    Returns:
        The repaired query, the list of changes, and whether it is usable at all.
    """
    changes: list[Change] = []
    negated: tuple[str, ...] = ()
    unpacked = _unpack(sq)
    if unpacked is None:
        return Validated(StructuredQuery(query=""), [], usable=False)
    raw_query, raw_filter, raw_limit = unpacked
    text = _query_text(raw_query)
    node: FilterNode | None = None
    if raw_filter is not None:
        node = Repairer(schema, catalogue, today, changes).node(raw_filter)
        # A filter that cannot select anything is never passed on (see _satisfy).
        # Only documents that have a number or a flag can be "not" a value of it (see _present);
        # satisfiability is then judged on what the store will be asked.
        negated = tuple(needed_by_negation(node, schema)) if node is not None else ()
        node = held_where_present(node, schema) if node is not None else None
        node = make_satisfiable(node, schema, changes, question=question)
        if node is None:
            changes.append(Change(kind="empty_filter", detail="no usable condition left; searching without a filter"))
    limit = _limit(_grounded_limit(raw_limit, question, changes), max_limit, changes)
    query = StructuredQuery(query=text, filter=node, limit=limit)
    return Validated(query, changes, usable=bool(text) or node is not None,
                     negated=tuple(a for a in negated if node is not None and a in {c.attribute for c in clauses(node)}))
