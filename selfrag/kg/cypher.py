"""The only Cypher selfrag sends: templates compiled from declared schema, values as parameters.

Every value that comes from a question, an API call or a data file travels in ``params``; the
template holds only fixed words and identifiers that passed ``check_identifier`` and are
backtick-quoted here as well (so a label named like a keyword still works). A template is
therefore fixed by the schema alone and can be logged and traced as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from selfrag.kg.schema import Relation, check_identifier

__all__ = ["ENTITY_LABEL", "MAX_RESOLVED", "CompiledQuery", "compile_relation", "quote"]

ENTITY_LABEL = "Entity"
"""Every loaded node carries this label besides its own, so one index on ``id`` finds any node."""

MAX_RESOLVED = 10_000
"""Most entities a relation resolves to: a larger set would not fit a metadata filter anyway."""


def quote(identifier: str) -> str:
    """``identifier`` backtick-quoted, after checking it is one (so it can hold no backtick)."""
    return f"`{check_identifier(identifier, 'identifier')}`"


@dataclass(frozen=True)
class CompiledQuery:
    """A Cypher template and its parameters: what the trace records and the store runs."""

    template: str
    params: Mapping[str, Any] = field(default_factory=dict)


def compile_relation(relation: Relation, entity_id: str, *, limit: int = MAX_RESOLVED) -> CompiledQuery:
    """The read-only query resolving ``relation`` from the entity ``entity_id`` (a start-label node).

    Returns rows ``(id, name)`` of the distinct result entities, ordered by name.
    """
    parts = [f"MATCH (s:{quote(ENTITY_LABEL)}:{quote(relation.start)} {{id: $entity}})"]
    last = len(relation.path) - 1
    for i, hop in enumerate(relation.path):
        node = f"(t:{quote(hop.label)})" if i == last else f"(:{quote(hop.label)})"
        edge = {"out": "-[:{t}]->", "in": "<-[:{t}]-", "both": "-[:{t}]-"}[hop.direction].format(t=quote(hop.type))
        parts.append(edge + node)
    # A path may come back to where it started ("competitors of my competitors"): the entity itself is no answer.
    template = "".join(parts) + " WHERE t <> s RETURN DISTINCT t.id AS id, t.name AS name ORDER BY name LIMIT $limit"
    return CompiledQuery(template, {"entity": entity_id, "limit": int(limit)})
