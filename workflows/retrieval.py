"""The retrieve path's search over one resource: dense + BM25 fused, the filter relaxed when it finds
nothing, then the rerank stage (retrieve ``k × factor``, rerank, keep ``top_n``).

``RetrievalStage`` is the seam ``Components`` holds: its defaults (no lexical indexes, no reranker)
search exactly as the dense-only engine did, which is what the unit tests' fake stores get; the
factory builds the configured one (``retrieval.*`` settings). A reranker that fails keeps the fused
order and says why in the trace: reranking refines, it must never cost the answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from selfrag.errors import SelfRagError, describe
from selfrag.query import FilterNode, and_where, relaxations, to_where
from selfrag.rerank import Reranker, rerank_hits
from selfrag.retrieval import (
    DENSE,
    ChunkSource,
    FusedHit,
    HybridConfig,
    HybridRetriever,
    LexicalIndexes,
    LexicalRetriever,
    dense_only,
)
from selfrag.store import SearchableCollection
from workflows import records as rec

_log = logging.getLogger(__name__)

__all__ = ["LATEST", "RetrievalStage", "Searched", "chunk_source", "to_document"]

LATEST = "latest"
"""The retriever name of a newest-first list (its hits score 1.0: no similarity was asked)."""


def chunk_source(collection: object) -> ChunkSource | None:
    """What the lexical index reads a collection through (the store's ``lexical_source``); None
    for a collection without one (a fake, an object that is no store collection): that resource
    is searched dense only."""
    return collection.lexical_source() if isinstance(collection, SearchableCollection) else None


def to_document(hit: FusedHit) -> rec.Document:
    """A fused hit as the state's document; ``score`` stays the dense cosine (what the relevance
    signal reads; a newest-first hit's 1.0 stands in for it), 0.0 when only another retriever found it."""
    dense = next((s.score for s in hit.sources if s.retriever in (DENSE, LATEST)), 0.0)
    return rec.Document(
        id=hit.id, text=hit.text, metadata=dict(hit.metadata), score=round(float(dense), 4), resource=hit.resource,
        sources=[rec.SourceRankRecord(retriever=s.retriever, rank=s.rank, score=round(float(s.score), 4))
                 for s in hit.sources],
    )


class Searched(NamedTuple):
    """One resource's search after any relaxation."""

    hits: list[FusedHit]
    where: dict[str, Any] | None
    node: FilterNode | None
    """The self-queried filter finally used (looser than asked after relaxations)."""
    relaxations: list[rec.Relaxation]


@dataclass
class RetrievalStage:
    """How the workflow searches a resource and reranks what it found."""

    indexes: LexicalIndexes | None = None
    """The lexical indexes (hybrid retrieval); None: dense only."""
    hybrid: HybridConfig = HybridConfig()
    reranker: Reranker | None = None
    """None: no rerank stage (``retrieval.rerank.backend = none``)."""
    factor: int = 3
    """With a reranker: candidates retrieved per kept document."""
    top_n: int | None = None
    """With a reranker: documents kept (None: the resource's ``k``)."""
    resource_fusion: Literal["rrf", "min_max"] = "rrf"
    """How several resources' lists are merged (bench/results/resource-fusion)."""

    def wide(self, k: int) -> int:
        """Candidates to retrieve for ``k`` kept documents."""
        return k * self.factor if self.reranker is not None else k

    def keep(self, k: int) -> int:
        return self.top_n or k if self.reranker is not None else k

    def search(
        self, collection: SearchableCollection, resource: str, text: str, *,
        where: dict[str, Any] | None, k: int, min_score: float | None,
    ) -> list[FusedHit]:
        """The best ``k`` chunks of one resource, each with the retrievers that ranked it."""
        lexical = self._lexical(collection)
        if lexical is None:
            # Dense only: one search of exactly ``k``, as the engine always did.
            return dense_only(collection.search(text, where=where, k=k, min_score=min_score), resource)
        return HybridRetriever(collection, lexical, resource=resource, config=self.hybrid).search(
            text, where=where, k=k, min_score=min_score
        )

    def search_relaxing(
        self, collection: SearchableCollection, resource: str, text: str, *, fixed: dict[str, Any] | None,
        node: FilterNode | None, k: int, min_score: float | None,
    ) -> Searched:
        """Search with ``fixed`` AND the self-queried ``node``; when nothing matches, loosen ``node``
        step by step (``fixed`` — the caller's and the graph's conditions — is never relaxed)."""
        where = and_where(fixed, to_where(node))
        hits = self.search(collection, resource, text, where=where, k=k, min_score=min_score)
        relaxed: list[rec.Relaxation] = []
        if not hits and node is not None:
            for looser, change in relaxations(node, schema=collection.schema, catalogue=collection.catalogue()):
                where = and_where(fixed, to_where(looser))
                hits = self.search(collection, resource, text, where=where, k=k, min_score=min_score)
                relaxed.append(rec.Relaxation(detail=change.detail, where=where, hits=len(hits)))
                node = looser
                if hits:
                    break
        return Searched(hits, where, node, relaxed)

    def rerank(self, question: str, hits: Sequence[FusedHit], keep: int) -> tuple[list[FusedHit], rec.RerankRecord | None]:
        """The best ``keep`` of ``hits`` by the reranker; without one, or when it fails, the fused order."""
        if self.reranker is None:
            return list(hits[:keep]), None
        start = time.perf_counter()
        error = None
        try:
            kept = [r.hit for r in rerank_hits(self.reranker, question, hits, keep)] if hits else []
        except (SelfRagError, ValueError) as exc:
            kept = list(hits[:keep])
            error = f"{getattr(exc, 'code', 'invalid')}: {exc}"
            # The run goes on in the fused order; the operator still needs to see the backend failing.
            _log.warning("reranker %s failed, the fused order was kept: %s [%s]", self.reranker.name, error,
                         getattr(exc, "detail", None) or describe(exc))
        record = rec.RerankRecord(backend=self.reranker.name, candidates=len(hits), kept=[h.id for h in kept],
                                  error=error, ms=round((time.perf_counter() - start) * 1000, 2))
        return kept, record

    def close(self) -> None:
        """Release what the reranker holds (the ``http`` backend's connection pool) and the lexical
        indexes' connections (their files stay); idempotent. Backends that hold nothing have no
        ``close`` (it is not part of the ``Reranker`` Protocol, so a user's reranker need not write one)."""
        close = getattr(self.reranker, "close", None)
        if callable(close):
            close()
        if self.indexes is not None:
            self.indexes.close()

    def refresh(self, collection: object) -> None:
        """Bring a collection's lexical index up to date after a write (ingest, delete)."""
        source = chunk_source(collection)
        if self.indexes is not None and source is not None:
            self.indexes.refresh(source)

    def forget(self, name: str) -> None:
        """Drop a deleted collection's lexical index."""
        if self.indexes is not None:
            self.indexes.forget(name)

    def _lexical(self, collection: SearchableCollection) -> LexicalRetriever | None:
        if self.indexes is None:
            return None
        source = chunk_source(collection)
        return None if source is None else LexicalRetriever(source, self.indexes)
