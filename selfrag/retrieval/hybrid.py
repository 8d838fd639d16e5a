"""Hybrid retrieval over one resource: the dense and the lexical retrievers side by side, fused.

Both run with the same query and the same ``where`` (each applies it before ranking), concurrently;
each returns ``depth`` candidates, and fusion (``selfrag.retrieval.fusion``) keeps the best ``k``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from selfrag.errors import UsageError
from selfrag.retrieval.fusion import RRF_K, FusedHit, FusionMethod, RankedList, fuse
from selfrag.retrieval.lexical_search import LexicalRetriever
from selfrag.store import Hit, SearchableCollection

__all__ = ["DENSE", "LEXICAL", "HybridConfig", "HybridRetriever", "dense_only"]

DENSE = "dense"
LEXICAL = "lexical"


class HybridConfig(NamedTuple):
    """How one resource's dense and lexical results are combined.

    The defaults are the best measured on HaluEval dev and the own sets (``bench/results/retrieval-quality``):
    z-score fusion of 20 candidates per side (RRF lost recall as depth grew; min-max was a close second).
    """

    fusion: FusionMethod = "z"
    dense_weight: float = 1.0
    lexical_weight: float = 1.0
    depth: int | None = 20
    """Candidates each retriever returns before fusion (at least ``k``); None: ``k``."""
    rrf_k: int = RRF_K


def dense_only(hits: list[Hit], resource: str) -> list[FusedHit]:
    """Dense hits in the fused shape (hybrid off), so later stages see one kind of hit."""
    return fuse([RankedList(DENSE, resource, hits)], "rrf")


class HybridRetriever:
    """Dense + lexical retrieval over one resource, fused. ``lexical=None`` is dense only."""

    def __init__(
        self,
        dense: SearchableCollection,
        lexical: LexicalRetriever | None,
        *,
        resource: str,
        config: HybridConfig = HybridConfig(),
    ) -> None:
        self.dense = dense
        self.lexical = lexical
        self.resource = resource
        self.config = config

    def search(
        self, query: str, *, where: dict[str, Any] | None = None, k: int = 4, min_score: float | None = None
    ) -> list[FusedHit]:
        """The best ``k`` chunks by fused rank, best first, each with its dense and lexical ranks.

        Args:
            min_score: The dense retriever's cosine threshold (BM25 scores have no such scale).

        Raises:
            InvalidFilter, StoreError: as the retrievers raise them.
            UsageError: ``k`` is less than 1.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, got {k}")
        depth = max(k, self.config.depth or k)
        if self.lexical is None:
            return dense_only(self.dense.search(query, where=where, k=depth, min_score=min_score), self.resource)[:k]
        lexical = self.lexical
        # Dense embeds the query (the model's lock held) while BM25 scores in another thread.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lexical") as pool:
            pending = pool.submit(lexical.search, query, where=where, k=depth)
            dense_hits = self.dense.search(query, where=where, k=depth, min_score=min_score)
            lexical_hits = pending.result()
        lists = [
            RankedList(DENSE, self.resource, dense_hits, self.config.dense_weight),
            RankedList(LEXICAL, self.resource, lexical_hits, self.config.lexical_weight),
        ]
        return fuse(lists, self.config.fusion, rrf_k=self.config.rrf_k, limit=k)
