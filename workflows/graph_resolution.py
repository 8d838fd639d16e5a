"""A resource's conditions through its knowledge graph, resolved to a where clause: written once,
for every resource a question targets.

A ``mention`` term filters on the entity's own name; a ``relation`` term on the names of the
entities the relation reaches from it (compiled, parameterised Cypher: ``selfrag.kg``). Two
outcomes stop a resource short of a clause, and neither may ever be dropped in silence (searching
without the condition would answer a different question): a name that means several entities
(the run asks which: ``Clarification``) and a relation that reaches no entity (nothing can match).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from selfrag.errors import GraphUnavailable
from selfrag.kg import Entity, GraphContext, GraphContexts, mention_where, resolve_relation
from selfrag.query.graph_terms import GraphTerm
from selfrag.schema import CollectionSchema
from workflows import records as rec

__all__ = ["Resolved", "ask_which", "clarification", "graph_context", "resolve_terms"]


class Resolved(NamedTuple):
    """One resource's graph terms resolved."""

    where: dict[str, Any] | None
    """Every term's entity set as one where clause (None when one of them stopped it)."""
    resolutions: list[dict[str, Any]]
    """Each term resolved, for the trace: the relation, the entity, its Cypher, the entity set."""
    ambiguous: GraphTerm | None
    """The first term whose name means several entities: the user must say which."""
    no_match: str | None
    """Why no document can match (a relation reached no entity), as the answer says it."""
    stop: str | None
    """The same, as the run's stop reason."""


def graph_context(schema: CollectionSchema, graphs: GraphContexts | None) -> GraphContext | None:
    """The collection's linked graph, or None when it links none.

    Raises:
        GraphUnavailable: it links one and no graph store is configured or reachable.
        GraphNotFound: the linked graph is not loaded.
    """
    if schema.graph is None:
        return None
    if graphs is None:
        raise GraphUnavailable("this collection filters through a knowledge graph, and no graph store is configured")
    return graphs.get(schema.graph)


def ask_which(term: GraphTerm) -> str:
    """The question put to the user for an ambiguous name, listing the candidates."""
    options = "\n".join(f"{n}. {c.describe()}" for n, c in enumerate(term.candidates, 1))
    return f"Which {term.value!r} do you mean? Reply with a name or a number:\n{options}"


def clarification(question: str, term: GraphTerm) -> rec.Clarification:
    """The pending clarification the thread keeps for an ambiguous ``term`` of ``question``."""
    return rec.Clarification(question=question, value=term.value, relation=term.relation,
                             candidates=[c.model_dump(mode="json") for c in term.candidates], prompt=ask_which(term))


def _no_match(term: GraphTerm, relation_description: str, result_label: str, aside: Sequence[str] = ()) -> str:
    assert term.entity is not None
    other = f" other than {', '.join(aside)}" if aside else ""
    return (f"No document can match: in the graph, {term.entity.name} has no {result_label}{other} through "
            f"'{term.relation}' ({relation_description.rstrip('.')}). I won't answer without that condition.")


def resolve_terms(graphs: GraphContexts, context: GraphContext, terms: Sequence[GraphTerm]) -> Resolved:
    """``terms`` resolved in ``context``'s graph, stopping at the first that cannot give a clause.

    A term the question sets aside (``GraphTerm.excluded``: "not based in Japan", "besides Redwood
    Ventures") gives no clause: its entities are taken out of every relation's set. A relation left
    with none once they are is a relation that reaches none.

    Raises:
        GraphUnavailable, GraphNotFound: from the graph store.
    """
    ambiguous = next((t for t in terms if t.ambiguous or t.entity is None), None)
    if ambiguous is not None:
        return Resolved(None, [], ambiguous, None, None)
    resolutions: list[dict[str, Any]] = []
    aside: list[str] = []
    for term in (t for t in terms if t.excluded):
        resolution, names = _resolve(graphs, context, term)
        resolutions.append({**resolution, "excluded": True})
        aside.extend(n for n in names if n not in aside)
    # Alternatives ("in Japan or Korea", ``GraphTerm.either``) are one condition: their entities united.
    groups: dict[object, list[GraphTerm]] = {}
    for i, term in enumerate(t for t in terms if not t.excluded):
        groups.setdefault(("either", term.either) if term.either is not None else i, []).append(term)
    clauses: list[dict[str, Any]] = []
    for members in groups.values():
        united: list[str] = []
        for term in members:
            resolution, names = _resolve(graphs, context, term)
            resolutions.append(resolution if term.either is None else {**resolution, "either": term.either})
            united.extend(n for n in names if n not in united)
        kept = [n for n in united if n not in aside]
        relations = [t for t in members if t.kind == "relation" and t.relation is not None]
        if relations and not kept:
            term = relations[0]
            declared = context.link.relation(term.relation or "")
            assert declared is not None and term.entity is not None  # the planner reads only declared relations
            stop = f"no entity: {' or '.join(f'{t.relation} of {t.entity.name}' for t in relations if t.entity)} is empty in the graph"
            if united:
                stop += f" once {', '.join(aside)} are set aside"
            return Resolved(None, resolutions, None, _no_match(term, declared.description, declared.result_label,
                                                               aside if united else ()), stop)
        clause = mention_where(members[0].attribute, kept if relations else united)
        if clause is not None:
            clauses.append(clause)
    where = None if not clauses else clauses[0] if len(clauses) == 1 else {"$and": clauses}
    return Resolved(where, resolutions, None, None, None)


def _resolve(graphs: GraphContexts, context: GraphContext, term: GraphTerm) -> tuple[dict[str, Any], list[str]]:
    """One term's resolution for the trace, and the names of the entities it stands for."""
    assert term.entity is not None
    if term.kind == "mention" or term.relation is None:
        names = [term.entity.name]
        return {"kind": "mention", "entity": term.entity.model_dump(mode="json"), "attribute": term.attribute,
                "entities": names}, names
    entity = context.index.get(term.entity.id) or Entity(term.entity.id, term.entity.label, term.entity.name)
    res = resolve_relation(graphs.store, context.link, term.relation, entity)
    return {"kind": "relation", **res.model_dump(mode="json")}, list(res.names)
