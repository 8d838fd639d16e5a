"""Lexical retrieval over one collection: BM25 among the chunks a filter selects, read back by id."""

from __future__ import annotations

from typing import Any

from selfrag.errors import UsageError
from selfrag.retrieval.indexes import LexicalIndexes
from selfrag.store import Hit
from selfrag.store.source import ChunkSource

__all__ = ["LexicalRetriever"]


class LexicalRetriever:
    """BM25 search over ``source``, through its index in ``indexes``.

    Same call shape as the store's ``SearchableCollection.search`` (``search(query, where=..., k=...)``), but a hit's
    ``score`` is its BM25 score (> 0, comparable within one query only), not a cosine similarity.
    """

    def __init__(self, source: ChunkSource, indexes: LexicalIndexes) -> None:
        self.source = source
        self.indexes = indexes

    @property
    def name(self) -> str:
        return self.source.name

    def search(
        self, query: str, *, where: dict[str, Any] | None = None, k: int = 4, min_score: float | None = None
    ) -> list[Hit]:
        """The ``k`` chunks matching ``where`` that score best by BM25 for ``query``, best first.

        Only chunks sharing at least one term with ``query`` are returned (possibly none).

        Args:
            query: Free text.
            where: A Chroma filter applied before ranking (evaluated by the collection), or None.
            k: Most hits.
            min_score: Drop hits whose BM25 score is below this.

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
            UsageError: ``k`` is less than 1.
            StoreError: the collection cannot be read.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, got {k}")
        among = self.source.matching(where) if where else None
        if among is not None and not among:
            return []
        matches = self.indexes.get(self.source).search(query, k, among=among)
        if min_score is not None:
            matches = [m for m in matches if m.score >= min_score]
        chunks = {c.id: c for c in self.source.read([m.id for m in matches])}
        # A chunk deleted since the index last synced is skipped: the collection is the truth.
        return [
            Hit(id=m.id, text=chunks[m.id].text, metadata=chunks[m.id].metadata, score=m.score)
            for m in matches
            if m.id in chunks
        ]
