"""The ``none`` reranker: the retrieval order kept, so "no reranking" goes through the same stage."""

from __future__ import annotations

from collections.abc import Sequence

from selfrag.rerank.base import Reranked

__all__ = ["NoReranker"]


class NoReranker:
    """Keeps the given order; scores are ``1 / rank`` (only their order means anything)."""

    name = "none"

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        keep = len(documents) if top_n is None else min(top_n, len(documents))
        return [Reranked(i, 1.0 / (i + 1)) for i in range(keep)]
