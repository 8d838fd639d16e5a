"""Records a negated condition says nothing about: "not patched before 2023" of an advisory never patched.

A negated date or number is written so that it needs its attribute (``_present``, and the outside
of a date range in ``graph_terms``): a record without the attribute is selected by neither the
condition nor its opposite. That is right for records of another kind (the on-call policy has no
year, and is no incident "not in 2025"), and may be wrong for records of the same kind: an
advisory never patched was "not patched before 2023" too, and a painting of unknown year may or
may not be "not painted in 1900". Which one a missing value means is the data's, not the
question's, so a count, listing, ranking or yes/no computed from such a filter is no answer when
records of the kind lack the attribute; it still guides the search.

The planner is pure (schema and catalogue); whether such records exist needs the store, so the
caller passes its lookup (``workflows.plan_nodes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from selfrag.query._grounding import clauses
from selfrag.query.model import Change, Comparison, FilterNode, Operation
from selfrag.query.planner import Plan
from selfrag.query.translate import and_where, to_where
from selfrag.schema import CollectionSchema

__all__ = ["without_unrecorded"]

_NAMED = 10
"""Most records lacking the attribute an answer names (the rest are counted only)."""

Lookup = Callable[[dict[str, Any] | None], Sequence[Mapping[str, Any]] | None]
"""The metadata of every chunk a ``where`` selects; None when there are too many to read."""


def without_unrecorded(plan: Plan, schema: CollectionSchema, lookup: Lookup, *,
                       mandatory_where: dict[str, Any] | None = None, listing: bool = False) -> Plan:
    """``plan``, with nothing computed from its filter as the answer (no ``asks``, ``whether``
    or whole ``computed``) when records the rest of its filter selects lack an attribute one of
    its negated conditions needs, or when there are too many to tell; ``plan`` itself otherwise.
    The change it adds says how many and which attribute.

    ``listing``: the question asks for the matches themselves, no yes or no ("How many loans are
    not guaranteed?"): they are still the answer, the records that lack the attribute named
    beside them as not counted, or as counted though not known where the store selects them too
    (the change's ``unrecorded_values`` detail, which ends with their ids), rather than unsaid."""
    answers = plan.asks is not None or plan.whether is not None or (plan.computed is not None and plan.computed.whole)
    held = {c.attribute for c in clauses(plan.query.filter)}
    # "snacks but no meals": a record without services has no snacks either, so a value the
    # attribute must hold already leaves it out. (Not a bound: a negated date is written as one,
    # "not patched before 2023" as "patched from 2023".)
    present = {c.attribute for c in _conjuncts(plan.query.filter)
               if isinstance(c, Comparison) and c.comparator in ("eq", "in", "contains")}
    # A negated flag is written "== false" (``_present``): its own condition, no other value it must hold.
    present -= {a for a in plan.negated if (attr := schema.attribute(a)) is not None and attr.type == "boolean"}
    if not answers or not (needed := [a for a in plan.negated if a in held and a not in present]):
        return plan
    declared = {a.name for a in schema.attributes}
    for name in needed:
        rest = _without(plan.query.filter, name)
        rows = lookup(and_where(mandatory_where, to_where(rest)))
        if rows is None:
            detail = f"{name}: too many records to tell whether some have none; nothing computed from the filter is the answer"
        else:
            # Records of the kind: any other declared attribute (the on-call policy has none).
            lacking = {str(m.get("doc_id") or i) for i, m in enumerate(rows)
                       if m.get(name) is None and any(m.get(a) is not None for a in declared - {name})}
            if not lacking:
                continue
            many = len(lacking) != 1
            if listing and plan.asks == "documents" and plan.whether is None and plan.computed is None:
                # Said beside the matches: "17 matching documents … Not counted: LN-1, LN-2, LN-3". A
                # string's "$ne" and a list's "$not_contains" select a record without the attribute
                # (``_present``), so those are among the matches, counted though not known to match.
                counted = any(c.attribute == name and c.comparator in ("ne", "nin", "not_contains")
                              for c in clauses(plan.query.filter))
                shown = ", ".join(sorted(lacking)[:_NAMED]) + (", …" if len(lacking) > _NAMED else "")
                plan = replace(plan, changes=[*plan.changes, Change(kind="unrecorded_values", detail=(
                    f"{name}: {len(lacking)} record{'s' if many else ''} of the rest of the filter record"
                    f"{'' if many else 's'} no {name}, which the negated condition can neither tell nor leave out; "
                    f"{'counted' if counted else 'not counted'}: {shown}"))])
                continue
            detail = (f"{name}: {len(lacking)} matching record{'s' if many else ''} "
                      f"{'have' if many else 'has'} none, which the negated condition neither "
                      "selects nor excludes; nothing computed from the filter is the answer")
        computed = plan.computed if plan.computed is None else replace(plan.computed, whole=False)
        return replace(plan, asks=None, whether=None, computed=computed,
                       changes=[*plan.changes, Change(kind="unrecorded_values", detail=detail)])
    return plan


def _conjuncts(node: FilterNode | None) -> list[FilterNode]:
    """The conditions ``node`` ANDs together at its top (``node`` itself when it is no "and")."""
    if node is None:
        return []
    if isinstance(node, Operation) and node.operator == "and":
        return list(node.arguments)
    return [node]


def _without(node: FilterNode | None, name: str) -> FilterNode | None:
    """``node`` without its comparisons on ``name`` (an operation left empty goes too)."""
    if node is None or not isinstance(node, Operation):
        return None if node is None or node.attribute == name else node
    kept = [k for a in node.arguments if (k := _without(a, name)) is not None]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else node.model_copy(update={"arguments": kept})
