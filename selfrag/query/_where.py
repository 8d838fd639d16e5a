"""Reading a caller's Chroma ``where`` clause into a filter tree, strictly.

A caller-given filter (an API client's mandatory tenant filter, a ``--where`` option) is not
repaired the way model output is: a typo there is the caller's mistake and silently changing it
would return the wrong documents. Problems raise :class:`~selfrag.errors.InvalidFilter` with a
one-line message naming the attribute or operator at fault.
"""

from __future__ import annotations

from typing import Any

from selfrag.errors import InvalidFilter
from selfrag.query.model import Comparator, Comparison, FilterNode, Operation, Operator, Scalar
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.values import date_number

__all__ = ["MAX_FILTER_VALUES", "parse_where"]

MAX_FILTER_VALUES = 10_000
"""Most values one filter may hold (every ``$in``/``$nin`` item and every compared value).

Chroma binds each value as one SQLite variable, and refuses a query past its variable limit
with an internal error ("too many SQL variables"); measured by ``bench/filter_limit.py``
(results in ``bench/results/filter-limit/``). A third of what it takes, to leave room for the
self-queried conditions ANDed with a caller's filter."""

_OPS: dict[str, Comparator] = {
    "$eq": "eq", "$ne": "ne", "$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte", "$in": "in", "$nin": "nin",
}  # fmt: skip
_ORDERING = {"gt", "gte", "lt", "lte"}
_MEMBERSHIP: dict[str, Comparator] = {"$contains": "contains", "$not_contains": "not_contains"}
"""Tests of a list attribute's elements (``string[]``): the only operators it takes."""


def _scalar(attr: AttributeInfo, op: str, value: Any) -> Scalar:
    if attr.type == "string[]":
        raise InvalidFilter(f"where: {attr.name} is a list attribute: test it with $contains or $not_contains")
    if attr.type == "date":
        number = date_number(value)
        if number is None:
            raise InvalidFilter(f"where: {attr.name} is a date (ISO, e.g. 2024-03-05) but {op} got {value!r}")
        return number
    ok = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, (int, float)) and not isinstance(value, bool),
    }[attr.type]
    if not ok:
        raise InvalidFilter(f"where: {attr.name} is {attr.type} but {op} got {value!r}")
    if attr.type == "float":
        return float(value)
    return value  # type: ignore[no-any-return]


def _field(attr: AttributeInfo, expr: Any) -> Comparison:
    if not isinstance(expr, dict):
        return Comparison(attribute=attr.name, comparator="eq", value=_scalar(attr, "$eq", expr))
    if len(expr) != 1:
        raise InvalidFilter(f"where: {attr.name} needs exactly one operator, got {sorted(expr) or 'none'}")
    ((op, operand),) = expr.items()
    if op in _MEMBERSHIP:
        if attr.type != "string[]":
            raise InvalidFilter(f"where: {op} tests the elements of a list (string[]) attribute; {attr.name} is {attr.type}")
        if not isinstance(operand, str):
            raise InvalidFilter(f"where: {op} on {attr.name} needs one string, got {operand!r}")
        return Comparison(attribute=attr.name, comparator=_MEMBERSHIP[op], value=operand)
    comparator = _OPS.get(op)
    if comparator is None:
        ops = list(_MEMBERSHIP) if attr.type == "string[]" else list(_OPS)
        raise InvalidFilter(f"where: unsupported operator {op!r} on {attr.name} (use one of {', '.join(ops)})")
    if comparator in _ORDERING and attr.type in ("string", "boolean"):
        raise InvalidFilter(f"where: {op} needs a number but {attr.name} is {attr.type}")  # dates order as numbers
    if comparator in ("in", "nin"):
        if not isinstance(operand, list) or not operand:
            raise InvalidFilter(f"where: {op} on {attr.name} needs a non-empty list, got {operand!r}")
        values = [_scalar(attr, op, v) for v in operand]
        return Comparison(attribute=attr.name, comparator=comparator, value=values)
    return Comparison(attribute=attr.name, comparator=comparator, value=_scalar(attr, op, operand))


def _node(where: Any, schema: CollectionSchema) -> FilterNode:
    if not isinstance(where, dict) or not where:
        raise InvalidFilter(f"where: expected a non-empty object, got {where!r}")
    nodes: list[FilterNode] = []
    for key, value in where.items():
        if key in ("$and", "$or"):
            if not isinstance(value, list) or not value:
                raise InvalidFilter(f"where: {key} needs a non-empty list of conditions")
            parts = [_node(v, schema) for v in value]
            op: Operator = "and" if key == "$and" else "or"
            nodes.append(parts[0] if len(parts) == 1 else Operation(operator=op, arguments=parts))
        elif isinstance(key, str) and key.startswith("$"):
            raise InvalidFilter(f"where: unsupported operator {key!r} (use $and, $or or an attribute name)")
        else:
            attr = schema.attribute(key)
            if attr is None:
                declared = ", ".join(schema.names) or "none"
                raise InvalidFilter(f"where: unknown attribute {key!r} (declared: {declared})")
            nodes.append(_field(attr, value))
    # Several fields in one object are read as their conjunction, as most query languages do.
    return nodes[0] if len(nodes) == 1 else Operation(operator="and", arguments=nodes)


def parse_where(where: dict[str, Any], schema: CollectionSchema) -> FilterNode:
    """Read a Chroma ``where`` clause, checked against ``schema``.

    Accepts the operators Chroma supports for metadata (``$eq``, ``$ne``, ``$gt``, ``$gte``,
    ``$lt``, ``$lte``, ``$in``, ``$nin``; ``$contains`` and ``$not_contains`` with one string, on
    ``string[]`` attributes, which take no other), the shorthand ``{"attr": value}``, and
    ``$and``/``$or``.

    Raises:
        InvalidFilter: an unknown attribute, a value of the wrong type, an unsupported operator,
            or more than ``MAX_FILTER_VALUES`` values in all.
    """
    node = _node(where, schema)
    count = _values(node)
    if count > MAX_FILTER_VALUES:
        raise InvalidFilter(
            f"where: the filter holds {count} values; at most {MAX_FILTER_VALUES} are allowed "
            "(split the question, or filter on a coarser attribute)"
        )
    return node


def _values(node: FilterNode) -> int:
    if isinstance(node, Comparison):
        return len(node.value) if isinstance(node.value, list) else 1
    return sum(_values(n) for n in node.arguments)
