"""Translation of a validated filter tree into a Chroma ``where`` clause.

Chroma has no ``$not``, requires ``$and``/``$or`` to have at least two members and every
operator object to hold exactly one operator. So negation is pushed down to the comparisons
(``not (a and b)`` is ``not a or not b``; ``not rating gt 8`` is ``rating lte 8``) and
single-member groups collapse into their member. The function is pure and trusts its input to
have been through :func:`~selfrag.query.validate.validate_query` (values of the right type).

One caveat of pushing ``not`` down: Chroma's ``$ne``/``$nin`` match documents that lack the
attribute while ``$gt`` and friends do not, so ``not (rating gt 8)`` excludes unrated documents.
"""

from __future__ import annotations

from typing import Any

from selfrag.query.model import Comparator, Comparison, FilterNode, Operation

__all__ = ["and_where", "push_not", "to_where"]

_NEGATED: dict[Comparator, Comparator] = {
    "eq": "ne", "ne": "eq", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte", "in": "nin", "nin": "in",
    "contains": "not_contains", "not_contains": "contains",
}  # fmt: skip


def push_not(node: FilterNode, negate: bool = False) -> FilterNode:
    """The same condition with every ``not`` moved onto the comparisons (De Morgan)."""
    if isinstance(node, Comparison):
        if not negate:
            return node
        return Comparison(attribute=node.attribute, comparator=_NEGATED[node.comparator], value=node.value)
    if node.operator == "not":
        # ``not`` over several arguments is read as "none of them", as validation does.
        inner: FilterNode = node.arguments[0] if len(node.arguments) == 1 else Operation(operator="or", arguments=node.arguments)
        return push_not(inner, not negate)
    operator = node.operator if not negate else ("or" if node.operator == "and" else "and")
    return Operation(operator=operator, arguments=[push_not(a, negate) for a in node.arguments])


def _group(key: str, parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    flat: list[dict[str, Any]] = []
    for part in parts:
        flat.extend(part[key] if set(part) == {key} else [part])
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else {key: flat}


def _where(node: FilterNode) -> dict[str, Any] | None:
    if isinstance(node, Comparison):
        value = list(node.value) if isinstance(node.value, list) else node.value
        return {node.attribute: {f"${node.comparator}": value}}
    parts = [w for w in (_where(a) for a in node.arguments) if w is not None]
    return _group(f"${node.operator}", parts)


def to_where(node: FilterNode | None) -> dict[str, Any] | None:
    """The Chroma ``where`` clause for ``node``; None for no filter.

    >>> to_where(Comparison(attribute="rating", comparator="gt", value=8.5))
    {'rating': {'$gt': 8.5}}
    """
    if node is None:
        return None
    return _where(push_not(node, False))


def and_where(mandatory: dict[str, Any] | None, generated: dict[str, Any] | None) -> dict[str, Any] | None:
    """Both clauses must hold: a caller's mandatory filter is added to, never replaced by, a generated one.

    Existing top-level ``$and`` groups are flattened so the result stays one level deep.
    """
    parts = [w for w in (mandatory, generated) if w]
    return _group("$and", parts)
