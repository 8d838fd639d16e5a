"""Relaxation: which conditions to give up, one at a time, when a filtered search finds nothing.

Only top-level conjuncts are dropped. Dropping a conjunct always widens the result; dropping
a member of an ``or`` (or a condition under a ``not``) could narrow it, so such groups go as a
whole.

The order, and why:

1. **Unknown string values** (not in the catalogue or the allowed values, when those are given):
   an unknown name is the likeliest reason for an empty result (a hallucinated or misspelled
   entity matches nothing) and the least trustworthy condition.
2. **Numeric bounds** (``gt``/``gte``/``lt``/``lte``): often read too tightly ("after 1990" vs
   "1990 onwards") and each one cuts a large part of the collection.
3. **Numeric or boolean equalities**: an exact year is frequently off by one.
4. **Negations** (``ne``/``nin``/``not``): they exclude little, so they are rarely the cause,
   but the user stated them explicitly; giving them up only matters once the rest is gone.
5. **Known categorical values** last: an exact match on a value the collection is known to hold
   is the most reliable condition and usually the point of the question.

Within a rank, conditions go in the order they appear. The last step is always no filter at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from selfrag.lang import normalise
from selfrag.query._grounding import clauses
from selfrag.query.model import Change, Comparison, FilterNode, Operation, Scalar
from selfrag.schema import CollectionSchema

__all__ = ["describe", "relaxations"]

_UNKNOWN, _BOUND, _EQUALITY, _NEGATION, _KNOWN = range(5)


def describe(node: FilterNode) -> str:
    """A short human-readable form of a condition, for traces: ``year gt 1990``."""
    if isinstance(node, Comparison):
        return f"{node.attribute} {node.comparator} {node.value!r}"
    if node.operator == "not":
        return "not (" + " and ".join(describe(a) for a in node.arguments) + ")"
    return "(" + f" {node.operator} ".join(describe(a) for a in node.arguments) + ")"


class _Known:
    def __init__(self, schema: CollectionSchema | None, catalogue: Mapping[str, Sequence[str]] | None) -> None:
        self._given = schema is not None or catalogue is not None
        self._values: dict[str, set[str]] = {}
        for attr in schema.attributes if schema else []:
            self._values.setdefault(attr.name, set()).update(normalise(str(v)) for v in attr.allowed_values or [])
        for name, values in (catalogue or {}).items():
            self._values.setdefault(name, set()).update(normalise(v) for v in values)

    def unknown(self, clause: Comparison) -> bool:
        values: list[Scalar] = clause.value if isinstance(clause.value, list) else [clause.value]
        if not self._given or not all(isinstance(v, str) for v in values):
            return False
        known = self._values.get(clause.attribute, set())
        return any(normalise(str(v)) not in known for v in values)


def _rank(unit: FilterNode, known: _Known) -> int:
    leaves = list(clauses(unit))
    if any(c.comparator in ("eq", "in") and known.unknown(c) for c in leaves):
        return _UNKNOWN
    if isinstance(unit, Operation) and unit.operator == "not":
        return _NEGATION
    if leaves and all(c.comparator in ("ne", "nin") for c in leaves):
        return _NEGATION

    def leaf_rank(c: Comparison) -> int:
        if c.comparator in ("gt", "gte", "lt", "lte"):
            return _BOUND
        first = c.value[0] if isinstance(c.value, list) and c.value else c.value
        if c.comparator in ("ne", "nin"):
            return _NEGATION
        return _KNOWN if isinstance(first, str) else _EQUALITY

    return min((leaf_rank(c) for c in leaves), default=_KNOWN)


def relaxations(
    node: FilterNode | None,
    *,
    schema: CollectionSchema | None = None,
    catalogue: Mapping[str, Sequence[str]] | None = None,
) -> list[tuple[FilterNode | None, Change]]:
    """The successively looser filters to try, each with the change that produced it.

    Each step drops one more top-level condition (in the order described in the module
    docstring); the last step's filter is None. ``schema`` and ``catalogue``, when given, let
    conditions on unknown string values go first. An empty list means there is nothing to relax.
    """
    if node is None:
        return []
    units = list(node.arguments) if isinstance(node, Operation) and node.operator == "and" else [node]
    known = _Known(schema, catalogue)
    order = sorted(range(len(units)), key=lambda i: (_rank(units[i], known), i))
    dropped: set[int] = set()
    steps: list[tuple[FilterNode | None, Change]] = []
    for i in order:
        dropped.add(i)
        remaining = [u for j, u in enumerate(units) if j not in dropped]
        relaxed: FilterNode | None = (
            None if not remaining else remaining[0] if len(remaining) == 1 else Operation(operator="and", arguments=remaining)
        )
        steps.append((relaxed, Change(kind="relaxed", detail=f"dropped {describe(units[i])}")))
    return steps
