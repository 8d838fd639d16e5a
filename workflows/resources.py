"""Several resources per question: each self-queried against its own schema, searched concurrently
with its own settings, merged into one ranked list whose documents keep their resource's name.

A resource is a collection of the store or, from the Python API, any LangChain ``BaseRetriever``
(searched with the question as is: it has no schema to self-query). One resource failing (an
unknown or removed collection, a store error, a graph it cannot reach) is recorded in its
``ResourcePlan``/``ResourceRetrieval`` and the others still answer; all failing or empty leads to
the usual abstention. A question naming one collection with no per-call settings never comes here
(``workflows.nodes`` keeps that path as it always was).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeVar

from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import ContextThreadPoolExecutor
from pydantic import TypeAdapter

from selfrag.errors import SelfRagError, UsageError, describe
from selfrag.kg import Entity, GraphContexts, mention_where, resolve_relation
from selfrag.query import FilterNode, SelfQueryPlanner, and_where
from selfrag.retrieval import FusedHit, RankedList, fuse
from selfrag.store import CollectionSource, Hit
from workflows import records as rec
from workflows.retrieval import RetrievalStage

__all__ = ["MAX_RESOURCES", "Resource", "ResourceSearch", "merge_resources", "parse_search", "plan_resources",
           "resolve_resources", "retrieve_resources"]

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


def _concurrently(fn: Callable[[Resource], T], resources: Sequence[Resource]) -> list[T]:
    # ContextThreadPoolExecutor carries the run's callbacks (LLM usage, tracing) into the workers.
    if len(resources) == 1:
        return [fn(resources[0])]
    with ContextThreadPoolExecutor(max_workers=min(len(resources), 4)) as pool:
        return list(pool.map(fn, resources))


def _failed(res: Resource, question: str, k: int, exc: SelfRagError | str, code: str | None = None) -> rec.ResourcePlan:
    error = exc if isinstance(exc, str) else str(exc)
    return rec.ResourcePlan(resource=res.name, query=question, fixed=res.search.where, filter=None, k=k, source="none",
                            error=error, error_code=code if isinstance(exc, str) else exc.code)


def plan_resources(
    resources: Sequence[Resource], question: str, *, store: CollectionSource, planner: SelfQueryPlanner,
    graphs: GraphContexts | None, top_k: int, today: date,
) -> list[rec.ResourcePlan]:
    """Each resource's self-query against its own schema (concurrently)."""

    def one(res: Resource) -> rec.ResourcePlan:
        k = res.search.k or top_k
        off = rec.ResourcePlan(resource=res.name, query=question, fixed=res.search.where, filter=None, k=k,
                               source="retriever" if res.retriever is not None else "off", error=None, error_code=None)
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
            if plan.terms:
                assert graph is not None and graphs is not None
                graph_where, why = _graph_where(graphs, graph, plan.terms)
                if why is not None:
                    return _failed(res, question, k, why, "graph_condition")
                fixed = and_where(fixed, graph_where)
        except SelfRagError as exc:
            return _failed(res, question, k, exc)
        node = plan.query.filter
        return rec.ResourcePlan(
            resource=res.name, query=plan.query.query or question, fixed=fixed,
            filter=None if node is None else _FILTER.dump_python(node, mode="json"),
            k=plan.query.limit or k, source=plan.source, error=None, error_code=None,
        )

    return _concurrently(one, resources)


def _graph_where(graphs: GraphContexts, context: Any, terms: Sequence[Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The graph conditions of one resource's plan as a where clause, or why it cannot have one.

    An ambiguous name cannot be asked back across several resources (the clarification belongs to
    one collection's thread), and an empty relation means nothing there can match: both make this
    resource fail, never search without the condition.
    """
    clauses: list[dict[str, Any]] = []
    for term in terms:
        if term.ambiguous or term.entity is None:
            return None, f"{term.value!r} names several entities; ask this collection alone to choose"
        if term.kind == "mention":
            names = [term.entity.name]
        else:
            entity = context.index.get(term.entity.id) or Entity(term.entity.id, term.entity.label, term.entity.name)
            res = resolve_relation(graphs.store, context.link, term.relation, entity)
            if not res.entities:
                return None, f"in the graph, {term.entity.name} has nothing through {term.relation!r}"
            names = res.names
        clause = mention_where(term.attribute, names)
        if clause is not None:
            clauses.append(clause)
    if not clauses:
        return None, None
    return (clauses[0] if len(clauses) == 1 else {"$and": clauses}), None


def _retriever_hits(retriever: BaseRetriever, text: str, k: int) -> list[Hit]:
    docs = retriever.invoke(text)
    hits = []
    for doc in docs[:k]:
        doc_id = doc.id or str(doc.metadata.get("id") or "") or hashlib.sha256(doc.page_content.encode()).hexdigest()[:16]
        meta = {key: v for key, v in doc.metadata.items() if isinstance(v, (str, int, float, bool))}
        score = doc.metadata.get("score")
        hits.append(Hit(id=doc_id, text=doc.page_content, metadata=meta,
                        score=float(score) if isinstance(score, (int, float)) else 0.0))
    return hits


def retrieve_resources(
    resources: Sequence[Resource], plans: Sequence[rec.ResourcePlan], *, store: CollectionSource, stage: RetrievalStage,
    query: str | None, question: str, min_score: float | None,
) -> tuple[list[FusedHit], list[rec.Relaxation], rec.RetrievalRecord]:
    """Search every resource that planned without error (concurrently), merge, rerank.

    Args:
        query: A rewritten search text for every resource; None: each resource's own planned query.
        min_score: The run's threshold, for resources that set none.
    """
    by_name = {p["resource"]: p for p in plans}

    def one(res: Resource) -> tuple[list[FusedHit], list[rec.Relaxation], rec.ResourceRetrieval]:
        plan = by_name[res.name]
        text = query or plan["query"]
        start = time.perf_counter()
        hits: list[FusedHit] = []
        relaxed: list[rec.Relaxation] = []
        where: dict[str, Any] | None = None
        error, code = plan["error"], plan["error_code"]
        if error is None:
            try:
                k = stage.wide(plan["k"])
                if res.retriever is not None:
                    hits = fuse([RankedList(res.name, res.name, _retriever_hits(res.retriever, text, k))], "rrf")
                else:
                    coll = store.get_collection(res.name)
                    node = None if plan["filter"] is None else _FILTER.validate_python(plan["filter"])
                    found = stage.search_relaxing(coll, res.name, text, fixed=plan["fixed"], node=node, k=k,
                                                  min_score=res.search.min_score if res.search.min_score is not None
                                                  else min_score)
                    hits, where, relaxed = found.hits, found.where, found.relaxations
            except SelfRagError as exc:
                error, code = str(exc), exc.code
            except Exception as exc:  # a user's retriever may raise anything: it must not sink the others
                error, code = describe(exc, 300), "resource_failed"
        record = rec.ResourceRetrieval(resource=res.name, query=text, where=where, k=plan["k"], hits=len(hits),
                                       error=error, error_code=code, ms=round((time.perf_counter() - start) * 1000, 2))
        return hits, relaxed, record

    outs = _concurrently(one, resources)
    merged = merge_resources([(r.name, hits) for r, (hits, _, _) in zip(resources, outs, strict=True)],
                             stage.resource_fusion)
    keep = sum(p["k"] for p in plans if p["error"] is None) or 1
    kept, rerank = stage.rerank(question, merged, stage.keep(keep))
    record = rec.RetrievalRecord(query=query or question, resources=[o[2] for o in outs],
                                 fusion=f"{stage.resource_fusion} across resources", rerank=rerank)
    return kept, [r for o in outs for r in o[1]], record


def merge_resources(lists: Sequence[tuple[str, Sequence[FusedHit]]], method: str = "rrf") -> list[FusedHit]:
    """Several resources' ranked lists as one, deduplicated by (resource, chunk id).

    Each fused hit keeps the retrievers that ranked it within its resource (dense, lexical) rather
    than the cross-resource list, whose only retriever is the resource itself.
    """
    known: dict[tuple[str, str], FusedHit] = {}
    for name, hits in lists:
        for h in hits:
            known.setdefault((name, h.id), h)  # a chunk listed twice counts at its best place
    ranked = [RankedList(name, name, [Hit(h.id, h.text, h.metadata, h.score) for h in hits]) for name, hits in lists]
    fused = fuse(ranked, "rrf" if method == "rrf" else "min_max")
    return [replace(f, sources=known[(f.resource, f.id)].sources) for f in fused]


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
