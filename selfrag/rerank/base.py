"""The reranking stage: a Protocol every backend implements, and "retrieve wide, rerank, keep top n".

A reranker sees the question and the candidates' texts (what a ``/v1/rerank`` server sees) and
answers with candidate positions and scores, best first. Mapping those back to hits, and retrieving
``k × factor`` candidates to give it something to reorder, happen here once for every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from selfrag.errors import ProviderError
from selfrag.retrieval.fusion import FusedHit

__all__ = ["Reranked", "RerankedHit", "Reranker", "check_ranking", "rerank_hits", "retrieve_and_rerank"]


@dataclass(frozen=True)
class Reranked:
    """One candidate's place after reranking."""

    index: int
    """Its position in the candidates given."""
    score: float
    """The backend's relevance score; higher is better, scale backend-specific."""


class RerankedHit(NamedTuple):
    """A hit after reranking, with where it stood before."""

    hit: FusedHit
    score: float
    """The reranker's score."""
    before: int
    """Its 1-based rank before reranking (in the fused order)."""


@runtime_checkable
class Reranker(Protocol):
    """Orders candidate texts by relevance to a query."""

    @property
    def name(self) -> str:
        """The backend's name (``none``, ``cross_encoder``, ``http``, ``llm``), for traces."""
        ...

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        """The candidates best first, at most ``top_n`` (None: all), each index once.

        Raises:
            ProviderError: the backend failed (its caller may fall back to the order it had).
        """
        ...


def check_ranking(ranking: Sequence[Reranked], count: int, backend: str) -> list[Reranked]:
    """``ranking`` if it names each of ``count`` candidates at most once, else ``ProviderError``."""
    seen: set[int] = set()
    for item in ranking:
        if not 0 <= item.index < count or item.index in seen:
            raise ProviderError(
                f"the {backend} reranker answered with an invalid ranking of {count} candidates",
                detail=f"index {item.index}",
            )
        seen.add(item.index)
    return list(ranking)


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[FusedHit], top_n: int) -> list[RerankedHit]:
    """Rerank ``hits`` for ``query`` and keep the best ``top_n``, best first (reranker's order and scores)."""
    if top_n < 1:
        raise ValueError(f"top_n must be at least 1, got {top_n}")
    if not hits:
        return []
    ranking = check_ranking(reranker.rerank(query, [h.text for h in hits], top_n), len(hits), reranker.name)
    return [RerankedHit(hits[r.index], r.score, r.index + 1) for r in ranking[:top_n]]


def retrieve_and_rerank(
    search: Callable[[int], Sequence[FusedHit]], reranker: Reranker, query: str, *, k: int, factor: int
) -> list[RerankedHit]:
    """Retrieve ``k × factor`` candidates with ``search(n)``, rerank them, keep the best ``k``.

    ``search`` is the resource's retrieval with its filter already bound, e.g.
    ``lambda n: hybrid.search(question, where=where, k=n)``. ``factor`` 1 only reorders the top ``k``.
    """
    if k < 1 or factor < 1:
        raise ValueError(f"k and factor must be at least 1, got k={k}, factor={factor}")
    return rerank_hits(reranker, query, search(k * factor), k)
