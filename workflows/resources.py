"""Several resources per question: what a resource is (a collection with its search settings, or a
LangChain retriever), how a call names them, and each one's plan — self-queried against its own
schema, its graph conditions resolved — made concurrently.

One resource failing for a usage reason (an unknown or removed collection, a graph that is not
loaded, a graph condition it cannot have) is recorded in its ``ResourcePlan`` and the others still
answer; all failing or empty leads to the usual abstention. A dependency that fails while planning
(the store, the graph server: a ``RuntimeFailure``) ends the run with that error instead, as on the
single-collection path: an outage is never an abstention.

A resource is a collection of the store or, from the Python API, any LangChain ``BaseRetriever``
(searched with the question as is: it has no schema to self-query). A question naming one
collection with no per-call settings never comes here (``workflows.nodes`` keeps that path as it
always was). Searching and merging the planned resources is ``workflows.resource_retrieval``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeVar

from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import ContextThreadPoolExecutor
from pydantic import TypeAdapter

from selfrag.errors import RuntimeFailure, SelfRagError, UsageError
from selfrag.kg import Entity, GraphContext, GraphContexts, mention_where, resolve_relation
from selfrag.query import FilterNode, SelfQueryPlanner, and_where
from selfrag.query.graph_terms import GraphTerm
from selfrag.store import CollectionSource
from workflows import records as rec

__all__ = ["MAX_RESOURCES", "Resource", "ResourceLike", "ResourceSearch", "concurrently", "parse_search", "plan_resources",
           "resolve_resources"]

MAX_RESOURCES = 8
"""Resources one question may target (each costs a self-query and a search)."""

_FILTER: TypeAdapter[Any] = TypeAdapter(FilterNode)
T = TypeVar("T")


@dataclass(frozen=True)
class ResourceSearch:
    """One resource's search settings; None inherits (the collection's config, then the run's)."""

    k: int | None = None
    """Documents retrieved from it (a self-queried limit overrides it)."""
    min_score: float | None = None
    """Minimum cosine similarity of its dense hits."""
    where: dict[str, Any] | None = None
    """A mandatory Chroma where clause for it, ANDed with its self-queried filter, never relaxed."""
    self_query: bool | None = None
    """False: search with the question as is, no filter from the model."""

    def over(self, base: ResourceSearch) -> ResourceSearch:
        """These settings where set, ``base``'s elsewhere."""
        return ResourceSearch(
            k=self.k if self.k is not None else base.k,
            min_score=self.min_score if self.min_score is not None else base.min_score,
            where=self.where if self.where is not None else base.where,
            self_query=self.self_query if self.self_query is not None else base.self_query,
        )


@dataclass(frozen=True)
class Resource:
    """Something a question is answered from: a collection by name, or a LangChain retriever."""

    name: str
    search: ResourceSearch = field(default_factory=ResourceSearch)
    retriever: BaseRetriever | None = None
    """From the Python API only: searched with the question, never self-queried."""


ResourceLike = str | Resource | BaseRetriever
"""What a call may name as a resource: a collection (or an engine's named retriever) by name, a
``Resource`` with its own search settings, or a LangChain retriever as is (named by ``get_name()``)."""

_BOOL = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


def parse_search(text: str) -> tuple[str, ResourceSearch]:
    """``a:k=10,min_score=0.3,self_query=off`` → ``("a", ResourceSearch(k=10, min_score=0.3, self_query=False))``.

    Raises:
        UsageError: not ``name:key=value,...``, an unknown key or a bad value (one line, for the CLI).
    """
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise UsageError(f"--search {text!r}: expected COLLECTION:key=value[,key=value] (keys: k, min_score, self_query)")
    values: dict[str, Any] = {}
    for part in rest.split(","):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or not value:
            raise UsageError(f"--search {text!r}: {part.strip()!r} is not key=value")
        try:
            if key == "k":
                values["k"] = int(value)
                if not 1 <= values["k"] <= 50:
                    raise ValueError
            elif key == "min_score":
                values["min_score"] = float(value)
                if not -1.0 <= values["min_score"] <= 1.0:
                    raise ValueError
            elif key == "self_query":
                values["self_query"] = _BOOL[value.lower()]
            else:
                raise UsageError(f"--search {text!r}: unknown key {key!r} (keys: k, min_score, self_query)")
        except (ValueError, KeyError):
            raise UsageError(f"--search {text!r}: bad value for {key} ({value!r}; k: 1-50, min_score: -1..1, "
                             "self_query: on/off)") from None
    return name, ResourceSearch(**values)


def concurrently(fn: Callable[[Resource], T], resources: Sequence[Resource]) -> list[T]:
    """``fn`` of each resource, in their order, at most four at once."""
    # ContextThreadPoolExecutor carries the run's callbacks (LLM usage, tracing) into the workers.
    if len(resources) == 1:
        return [fn(resources[0])]
    with ContextThreadPoolExecutor(max_workers=min(len(resources), 4)) as pool:
        return list(pool.map(fn, resources))


def _failed(res: Resource, question: str, k: int, exc: SelfRagError | str, code: str | None = None, *,
            resolutions: list[dict[str, Any]] | None = None) -> rec.ResourcePlan:
    error = exc if isinstance(exc, str) else str(exc)
    return rec.ResourcePlan(resource=res.name, query=question, fixed=res.search.where, filter=None, k=k, source="none",
                            error=error, error_code=code if isinstance(exc, str) else exc.code,
                            resolutions=resolutions or [])


def plan_resources(
    resources: Sequence[Resource], question: str, *, store: CollectionSource, planner: SelfQueryPlanner,
    graphs: GraphContexts | None, top_k: int, today: date,
) -> list[rec.ResourcePlan]:
    """Each resource's self-query against its own schema (concurrently)."""

    def one(res: Resource) -> rec.ResourcePlan:
        k = res.search.k or top_k
        off = rec.ResourcePlan(resource=res.name, query=question, fixed=res.search.where, filter=None, k=k,
                               source="retriever" if res.retriever is not None else "off", error=None, error_code=None,
                               resolutions=[])
        if res.retriever is not None:
            return off
        try:
            coll = store.get_collection(res.name)
            if res.search.self_query is False:
                coll.schema  # noqa: B018 - an unreadable collection fails here, not mid-search
                return off
            graph = None
            if coll.schema.graph is not None:
                if graphs is None:
                    return _failed(res, question, k, "it filters through a knowledge graph and none is configured",
                                   "graph_unavailable")
                graph = graphs.get(coll.schema.graph)
            plan = planner.plan(question, coll.schema, coll.catalogue(), mandatory_where=res.search.where, today=today,
                                graph=graph)
            fixed = res.search.where
            resolutions: list[dict[str, Any]] = []
            if plan.terms:
                assert graph is not None and graphs is not None
                graph_where, resolutions, why = _graph_where(graphs, graph, plan.terms)
                if why is not None:
                    return _failed(res, question, k, why, "graph_condition", resolutions=resolutions)
                fixed = and_where(fixed, graph_where)
        except RuntimeFailure:
            raise
        except SelfRagError as exc:
            return _failed(res, question, k, exc)
        node = plan.query.filter
        return rec.ResourcePlan(
            resource=res.name, query=plan.query.query or question, fixed=fixed,
            filter=None if node is None else _FILTER.dump_python(node, mode="json"),
            k=plan.query.limit or k, source=plan.source, error=None, error_code=None, resolutions=resolutions,
        )

    return concurrently(one, resources)


def _graph_where(
    graphs: GraphContexts, context: GraphContext, terms: Sequence[GraphTerm],
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], str | None]:
    """One resource's graph conditions as a where clause, each term's resolution (for the trace, as
    ``graph_resolve`` records them on the single path), and why it cannot have the clause, if so.

    An ambiguous name cannot be asked back across several resources (the clarification belongs to
    one collection's thread), and an empty relation means nothing there can match: both make this
    resource fail, never search without the condition.
    """
    clauses: list[dict[str, Any]] = []
    resolutions: list[dict[str, Any]] = []
    for term in terms:
        if term.ambiguous or term.entity is None:
            resolutions.append({"kind": "ambiguous", "value": term.value, "relation": term.relation,
                                "candidates": [c.model_dump(mode="json") for c in term.candidates]})
            return None, resolutions, f"{term.value!r} names several entities; ask this collection alone to choose"
        if term.kind == "mention" or term.relation is None:
            names = [term.entity.name]
            resolutions.append({"kind": "mention", "entity": term.entity.model_dump(mode="json"),
                                "attribute": term.attribute, "entities": names})
        else:
            entity = context.index.get(term.entity.id) or Entity(term.entity.id, term.entity.label, term.entity.name)
            res = resolve_relation(graphs.store, context.link, term.relation, entity)
            resolutions.append({"kind": "relation", **res.model_dump(mode="json")})
            if not res.entities:
                return None, resolutions, f"in the graph, {term.entity.name} has nothing through {term.relation!r}"
            names = res.names
        clause = mention_where(term.attribute, names)
        if clause is not None:
            clauses.append(clause)
    if not clauses:
        return None, resolutions, None
    return (clauses[0] if len(clauses) == 1 else {"$and": clauses}), resolutions, None


def resolve_resources(
    collection: str | None, resources: Sequence[str | Resource] | None, defaults: Mapping[str, ResourceSearch],
) -> tuple[str, tuple[Resource, ...]]:
    """The question's first resource and, when it needs the several-resource path, all of them.

    One collection by name, with no per-call or configured search settings, keeps the single path
    (``()``); anything else — several names, a retriever, search settings — gets every resource
    with its settings resolved (the call's over the collection's configured defaults).

    Raises:
        UsageError: no resource, too many, or one named twice with different settings.
    """
    items: list[Resource] = [Resource(collection)] if collection else []
    for r in resources or ():
        items.append(Resource(r) if isinstance(r, str) else r)
    if not items:
        raise UsageError("name at least one collection to answer from")
    merged: dict[str, Resource] = {}
    for r in items:
        if not r.name:
            raise UsageError("a resource needs a name")
        if r.name in merged:
            if r != merged[r.name] and r.search != ResourceSearch() and merged[r.name].search != ResourceSearch():
                raise UsageError(f"resource {r.name!r} is given twice with different settings")
            if r.search != ResourceSearch() or r.retriever is not None:
                merged[r.name] = r
            continue
        merged[r.name] = r
    if len(merged) > MAX_RESOURCES:
        raise UsageError(f"{len(merged)} resources; a question may target at most {MAX_RESOURCES}")
    out = tuple(
        r if r.retriever is not None else replace(r, search=r.search.over(defaults.get(r.name, ResourceSearch())))
        for r in merged.values()
    )
    first = out[0]
    if len(out) == 1 and first.retriever is None and first.search == ResourceSearch():
        return first.name, ()
    return first.name, out
