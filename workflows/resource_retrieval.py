"""Retrieval over the planned resources (one collection is a list of one): each resource that planned
without error searched concurrently with its plan (a collection dense or hybrid, its filter relaxed
when it finds nothing, or its newest matches when it has filters and no topic; a LangChain
retriever with the search text), several lists merged into one ranked list whose documents keep
their resource's name, then the rerank stage. One resource failing here for a usage reason (a collection
removed meanwhile, a retriever that raises) is recorded in its ``ResourceRetrieval`` and the others
still answer. A dependency that fails (the store, a retriever's server that cannot be reached) ends
the run with its error: an answer from the resources left would pass for one from all of them.

Planning — what each resource is searched with — is ``workflows.plan_nodes``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any, NamedTuple

from langchain_core.retrievers import BaseRetriever
from pydantic import TypeAdapter

from selfrag.errors import RuntimeFailure, SelfRagError, describe
from selfrag.outages import as_dependency_error, is_outage
from selfrag.query import Comparison, FilterNode, Operation, and_where, to_where
from selfrag.retrieval import FusedHit, RankedList, fuse
from selfrag.store import CollectionSource, Hit, SearchableCollection
from selfrag.text import content_terms
from workflows import records as rec
from workflows.resources import Resource, concurrently
from workflows.retrieval import LATEST, RetrievalStage, Searched, to_document

__all__ = ["Retrieved", "live", "merge_resources", "newest_hits", "plan_where", "search_resources", "search_text"]

_FILTER: TypeAdapter[Any] = TypeAdapter(FilterNode)


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


def search_text(plan: rec.ResourcePlan, rewritten: str | None, question: str) -> str:
    # A self-query that moved every word into the filter leaves a search text like "highly":
    # ranking (and the relevance signal, the retrieval cosine) would follow noise. Search with the
    # question itself then; the filter still selects.
    text = rewritten or plan["query"]
    return text if len(content_terms(text)) >= 2 else question


def live(plans: Sequence[rec.ResourcePlan]) -> list[rec.ResourcePlan]:
    """The plans that can still be searched (no planning or graph error)."""
    return [p for p in plans if p["error"] is None]


def plan_where(plan: rec.ResourcePlan) -> dict[str, Any] | None:
    """The Chroma filter of ``plan`` as it stands: its mandatory part and its (maybe relaxed) filter."""
    node = None if plan["filter"] is None else _FILTER.validate_python(plan["filter"])
    return and_where(plan["fixed"], to_where(node))


def filter_where(fixed: dict[str, Any] | None, node: dict[str, Any]) -> dict[str, Any] | None:
    """The Chroma filter of a filter as a plan stores it (``node``, JSON), ANDed with ``fixed``."""
    return and_where(fixed, to_where(_FILTER.validate_python(node)))


def newest_hits(coll: SearchableCollection, resource: str, plan: rec.ResourcePlan, today: date) -> Searched:
    """A plan with filters and no topic: its newest matches, no vector search (no relaxation either:
    the filter is the whole question)."""
    date_attr = coll.schema.date_attribute
    assert date_attr is not None  # the planner sets ``latest`` only for a schema with a date
    node = None if plan["filter"] is None else _FILTER.validate_python(plan["filter"])
    where = plan_where(plan)
    hits = coll.newest(attribute=date_attr.name, where=where, k=plan["k"], today=today)
    return Searched(fuse([RankedList(LATEST, resource, hits)], "rrf"), where, node, [])


def _attributes(node: FilterNode) -> set[str]:
    if isinstance(node, Comparison):
        return {node.attribute}
    return set().union(*(_attributes(a) for a in node.arguments))


_NONE_CHECK_CAP = 1_000
"""Most chunks read to check that every document the rest of a filter selects states a value for
each of its conditions, before "none match" is said."""


def _none_match(coll: SearchableCollection, plan: rec.ResourcePlan, found: Searched) -> bool:
    """Whether a plan whose filter holds all the question asks (``asks`` is ``documents``) found
    nothing under that filter because the store holds no match, counted: not because a score
    threshold cut every match. Graph plans are left out: an entity set is only as complete as the
    relations extracted into the graph, where the store's own metadata is the record."""
    if plan.get("asks") != "documents" or plan.get("graph_terms") or plan["filter"] is None:
        return False
    if found.hits and not found.relaxations:
        return False
    if coll.count_documents(plan_where(plan)) != 0:
        return False
    # A document the other conditions select that states no value for this one may have it ("sold
    # in Italy" of a notice listing no countries): then none is not known to match.
    node = _FILTER.validate_python(plan["filter"])
    parts = node.arguments if isinstance(node, Operation) and node.operator == "and" else [node]
    for n, part in enumerate(parts):
        rest = [p for i, p in enumerate(parts) if i != n]
        others = None if not rest else rest[0] if len(rest) == 1 else Operation(operator="and", arguments=rest)
        chunks = coll.matching(and_where(plan["fixed"], to_where(others)), cap=_NONE_CHECK_CAP)
        if chunks is None:
            return False  # too many to read: not known
        named = _attributes(part)
        if any(c.metadata.get(a) in (None, "", []) for c in chunks for a in named):
            return False
    return True


def search_resources(
    resources: Sequence[Resource], plans: Sequence[rec.ResourcePlan], *, store: CollectionSource, stage: RetrievalStage,
    rewritten: str | None, question: str, min_score: float | None, newest: date | None = None,
) -> Retrieved:
    """Search every resource that planned without error (concurrently), merge, rerank.

    Args:
        rewritten: A rewritten search text for every resource; None: each resource's own planned query.
        min_score: The run's threshold, for resources that set none.
        newest: The day a newest-first search counts back from; None: every plan is searched, its
            ``latest`` flag notwithstanding (after a rewrite the topic is the rewritten text).
    """
    by_name = {p["resource"]: p for p in plans}
    nothing: set[str] = set()

    def one(res: Resource) -> tuple[Searched, rec.ResourceRetrieval]:
        plan = by_name[res.name]
        text = search_text(plan, rewritten, question)
        start = time.perf_counter()
        found = Searched([], None, None, [])
        error, code = plan["error"], plan["error_code"]
        if error is None:
            try:
                k = stage.wide(plan["k"])
                if res.retriever is not None:
                    try:
                        user_hits = _retriever_hits(res.retriever, text, k)
                    except SelfRagError:
                        raise
                    except Exception as exc:  # a user's retriever may raise anything: it must not sink the others
                        if is_outage(exc):
                            raise as_dependency_error(exc, "retriever") from exc
                        user_hits, error, code = [], describe(exc, 300), "resource_failed"
                    found = Searched(fuse([RankedList(res.name, res.name, user_hits)], "rrf"), None, None, [])
                elif newest is not None and plan["latest"]:
                    found = newest_hits(store.get_collection(res.name), res.name, plan, newest)
                else:
                    node = None if plan["filter"] is None else _FILTER.validate_python(plan["filter"])
                    found = stage.search_relaxing(store.get_collection(res.name), res.name, text, fixed=plan["fixed"],
                                                  node=node, k=k, min_score=res.search.min_score
                                                  if res.search.min_score is not None else min_score)
                if res.retriever is None and _none_match(store.get_collection(res.name), plan, found):
                    found = Searched([], plan_where(plan), _FILTER.validate_python(plan["filter"]), [])
                    nothing.add(res.name)
            except RuntimeFailure:
                raise
            except SelfRagError as exc:
                error, code = str(exc), exc.code
        record = rec.ResourceRetrieval(resource=res.name, query=text, where=found.where, k=plan["k"],
                                       hits=len(found.hits), error=error, error_code=code,
                                       ms=round((time.perf_counter() - start) * 1000, 2))
        return found, record

    outs = concurrently(one, resources)
    searched = [found for found, _ in outs]
    fusion: str
    if len(outs) == 1:
        # One resource: its own list as it ranked it (dense, or dense + lexical fused).
        merged, fusion = searched[0].hits, stage.hybrid.fusion if stage.indexes is not None else "dense"
    else:
        merged = merge_resources([(r.name, f.hits) for r, f in zip(resources, searched, strict=True)],
                                 stage.resource_fusion)
        fusion = f"{stage.resource_fusion} across resources"
    if newest is not None and all(p["latest"] for p in live(plans)):
        kept, rerank = merged, None  # newest first is the order asked for: nothing to rerank
    else:
        kept, rerank = stage.rerank(question, merged, stage.keep(sum(p["k"] for p in live(plans)) or 1))
    relaxed: list[rec.ResourcePlan] = []
    for plan, found in zip((by_name[r.name] for r in resources), searched, strict=True):
        # The filter it finally searched with (looser after relaxations) holds for the turn's next searches.
        filt = None if found.node is None else _FILTER.dump_python(found.node, mode="json")
        if found.relaxations:
            plan = rec.ResourcePlan(**{**plan, "filter": filt})
        if plan["resource"] in nothing:
            plan = rec.ResourcePlan(**{**plan, "matched": 0})
        relaxed.append(plan)
    record = rec.RetrievalRecord(query=rewritten or question, resources=[r for _, r in outs], fusion=fusion, rerank=rerank)
    return Retrieved(
        documents=[to_document(h) for h in kept], plans=relaxed,
        relaxations=[x for f in searched for x in f.relaxations], record=record,
        where=searched[0].where,
    )


class Retrieved(NamedTuple):
    """What one retrieval over the planned resources found."""

    documents: list[rec.Document]
    plans: list[rec.ResourcePlan]
    """The plans with the filter each finally searched with."""
    relaxations: list[rec.Relaxation]
    record: rec.RetrievalRecord
    where: dict[str, Any] | None
    """The first resource's where clause (the result's ``filter``)."""


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
