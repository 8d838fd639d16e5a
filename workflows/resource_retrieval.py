"""Several resources' retrieval: each resource that planned without error searched concurrently with
its plan (a collection dense or hybrid, its filter relaxed when it finds nothing; a LangChain
retriever with the search text), the lists merged into one ranked list whose documents keep their
resource's name, then the rerank stage. One resource failing here for a usage reason (a collection
removed meanwhile, a retriever that raises) is recorded in its ``ResourceRetrieval`` and the others
still answer. A dependency that fails (the store, a retriever's server that cannot be reached) ends
the run with its error: an answer from the resources left would pass for one from all of them.

Planning — what each resource is searched with — is ``workflows.resources``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langchain_core.retrievers import BaseRetriever
from pydantic import TypeAdapter

from selfrag.errors import RuntimeFailure, SelfRagError, describe
from selfrag.outages import as_dependency_error, is_outage
from selfrag.query import FilterNode
from selfrag.retrieval import FusedHit, RankedList, fuse
from selfrag.store import CollectionSource, Hit
from workflows import records as rec
from workflows.resources import Resource, concurrently
from workflows.retrieval import RetrievalStage

__all__ = ["merge_resources", "retrieve_resources"]

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
            except RuntimeFailure:
                raise
            except SelfRagError as exc:
                error, code = str(exc), exc.code
            except Exception as exc:  # a user's retriever may raise anything: it must not sink the others
                if is_outage(exc):
                    raise as_dependency_error(exc, "retriever") from exc
                error, code = describe(exc, 300), "resource_failed"
        record = rec.ResourceRetrieval(resource=res.name, query=text, where=where, k=plan["k"], hits=len(hits),
                                       error=error, error_code=code, ms=round((time.perf_counter() - start) * 1000, 2))
        return hits, relaxed, record

    outs = concurrently(one, resources)
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
