"""Negations of numbers and booleans that hold only for documents that have the attribute.

Chroma's ``$ne`` and ``$nin`` also select documents without the attribute, while ``$eq``, ``$in``
and the orderings do not. "Incidents that were not in 2025" is about incidents with a year: read
as ``year $ne 2025`` it also lists the on-call policy, which has none, and signs it as a match.
So a negated comparison of a self-queried filter on a number or a boolean is written with
operators that need the attribute:

- ``year != 2025`` is ``year < 2025 or year > 2025``;
- ``year not in [2023, 2025]`` keeps the ``$nin`` and adds ``year < 2023 or year >= 2023``, which
  every stored year satisfies;
- ``online != true`` is ``online == false``.

A string stays ``$ne``/``$nin``. Strings cannot be ordered in Chroma, so the only way to need one
is to name every other value: the catalogue's known values need not be complete, and the
labelled self-query sets (``eval/sets``) score "any films except thrillers" as selecting a
record with no genre too. A caller's own filter (``_where.parse_where``) is the caller's Chroma
clause and is left as written.
"""

from __future__ import annotations

from selfrag.query._grounding import clauses
from selfrag.query.model import Comparison, FilterNode, Operation, Scalar
from selfrag.query.translate import push_not
from selfrag.schema import CollectionSchema

__all__ = ["held_where_present", "needed_by_negation"]


def held_where_present(node: FilterNode, schema: CollectionSchema) -> FilterNode:
    """``node`` with every negated comparison on a number or a boolean rewritten to need its
    attribute (see the module docstring); ``node`` itself when there is none."""
    pushed = push_not(node)
    rewritten = _rewrite(pushed, schema)
    return node if rewritten == pushed else rewritten


def needed_by_negation(node: FilterNode, schema: CollectionSchema) -> list[str]:
    """The attributes of ``node``'s negated comparisons, of which a record without the attribute is
    neither an instance nor a counter-example: one ``held_where_present`` makes need its number or
    flag is selected by neither the condition nor its opposite, and one a string's ``$ne`` or a
    list's ``$not_contains`` selects ("not captained by Helen Ruiz" of a flight whose captain is not
    recorded, "without wifi" of one whose services are not) may be one or not. A flag held false
    ("not tried before a jury", "unfurnished") is such a negation, however it is written."""
    out: list[str] = []
    for c in clauses(push_not(node)):
        attr = schema.attribute(c.attribute)
        if attr is None or c.attribute in out:
            continue
        if (c.comparator in ("ne", "nin") and attr.type in ("boolean", "integer", "float", "string")) \
                or (c.comparator == "eq" and attr.type == "boolean" and c.value is False) \
                or (c.comparator == "not_contains" and attr.type == "string[]"):
            out.append(c.attribute)
    return out


def _rewrite(node: FilterNode, schema: CollectionSchema) -> FilterNode:
    if isinstance(node, Comparison):
        return _present(node, schema)
    return Operation(operator=node.operator, arguments=[_rewrite(a, schema) for a in node.arguments])


def _present(c: Comparison, schema: CollectionSchema) -> FilterNode:
    attr = schema.attribute(c.attribute)
    excluded: list[Scalar] = list(c.value) if isinstance(c.value, list) else [c.value]
    if c.comparator not in ("ne", "nin") or attr is None or not excluded:
        return c
    if attr.type == "boolean":
        left = [v for v in (True, False) if not any(v is x for x in excluded)]
        # Both excluded: only a document without the flag matches, as validation judged possible.
        return Comparison(attribute=c.attribute, comparator="eq", value=left[0]) if len(left) == 1 else c
    if attr.type not in ("integer", "float") or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in excluded):
        return c
    first = excluded[0]
    below = Comparison(attribute=c.attribute, comparator="lt", value=first)
    if c.comparator == "ne":
        return Operation(operator="or", arguments=[below, Comparison(attribute=c.attribute, comparator="gt", value=first)])
    present = Operation(operator="or", arguments=[below, Comparison(attribute=c.attribute, comparator="gte", value=first)])
    return Operation(operator="and", arguments=[c, present])
