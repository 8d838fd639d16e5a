"""Resolving a relation condition to an entity set, through the graph store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from selfrag.errors import InvalidFilter
from selfrag.kg.cypher import compile_relation
from selfrag.kg.records import Entity, EntityRef, Resolution
from selfrag.kg.schema import GraphLink
from selfrag.kg.store import GraphStore

__all__ = ["mention_where", "resolve_relation"]


def mention_where(attribute: str, names: Sequence[str]) -> dict[str, Any] | None:
    """The Chroma ``where`` for "mentions any of ``names``": one ``$contains`` per name, ORed
    (``$in`` does not look inside array values). None for no names: then no document can match,
    which the caller must say rather than drop the condition."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return None
    clauses: list[dict[str, Any]] = [{attribute: {"$contains": n}} for n in unique]
    return clauses[0] if len(clauses) == 1 else {"$or": clauses}


def resolve_relation(store: GraphStore, link: GraphLink, relation: str, entity: Entity) -> Resolution:
    """Run ``relation`` from ``entity``: the resulting entities and what the trace records.

    An empty ``entities`` is an answer, not a failure: no document can match the condition.

    Raises:
        InvalidFilter: the relation is not declared, or ``entity`` is not of its start label.
        GraphUnavailable, GraphNotFound: from the store.
    """
    declared = link.relation(relation)
    if declared is None:
        names = ", ".join(r.name for r in link.relations) or "none"
        raise InvalidFilter(f"unknown relation {relation!r} (declared: {names})")
    if entity.label != declared.start:
        raise InvalidFilter(f"relation {relation!r} starts at a {declared.start}, and {entity.name!r} is a {entity.label}")
    mention = link.mention_for(declared.result_label)
    assert mention is not None  # GraphLink checks every relation ends at a mention attribute's label
    query = compile_relation(declared, entity.id)
    rows = store.run(link.graph, query)
    return Resolution(
        relation=relation,
        entity=EntityRef(id=entity.id, name=entity.name),
        template=query.template,
        params=dict(query.params),
        entities=tuple(EntityRef(id=str(r[0]), name=str(r[1])) for r in rows),
        attribute=mention.attribute,
    )
