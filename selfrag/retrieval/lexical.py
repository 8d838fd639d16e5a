"""BM25 over one collection's chunks, kept by chunk id so a write can replace or delete exactly.

The scoring is bm25s's (Lucene's BM25 variant, numpy only). bm25s builds an immutable sparse index,
so this class keeps each chunk's terms and rebuilds the bm25s index lazily, on the first search
after a change: a rebuild is linear in the corpus (see ``bench/retrieval_quality.py`` for its cost)
and an ingest changes many chunks at once, so one rebuild per batch of writes is the cheap order.

A search can be restricted to some ids (the chunks a metadata filter matched), which is how the
self-query's ``where`` pre-filters lexical retrieval exactly as it pre-filters the dense one: the
restriction is applied before ranking, so a selective filter still gets its best ``k``.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from selfrag.retrieval.terms import lexical_terms

if TYPE_CHECKING:
    import bm25s

__all__ = ["Bm25Params", "LexicalEntry", "LexicalIndex", "LexicalMatch"]


class Bm25Params(NamedTuple):
    """BM25's two knobs (Lucene's defaults are bm25s's and Elasticsearch's)."""

    k1: float = 1.5
    """Term-frequency saturation: how much a repeated term keeps adding."""
    b: float = 0.75
    """Length normalisation: 0 ignores a chunk's length, 1 divides fully by it."""


class LexicalEntry(NamedTuple):
    """One chunk as the index holds it."""

    id: str
    version: str
    """What its source says this chunk's content is (a document fingerprint or a text hash):
    a different version on the next sync means the chunk was replaced."""
    terms: tuple[str, ...]
    """``lexical_terms`` of its text."""


class LexicalMatch(NamedTuple):
    id: str
    score: float
    """The BM25 score (unbounded, > 0; only comparable within one query)."""


class LexicalIndex:
    """Chunk id → terms, searchable by BM25. Thread-safe: writes and the lazy rebuild hold a lock."""

    def __init__(self, entries: Iterable[LexicalEntry] = (), *, params: Bm25Params = Bm25Params()) -> None:
        self.params = params
        self._entries: dict[str, LexicalEntry] = {}
        self._lock = threading.Lock()
        self._built: _Built | None = None
        self.upsert(entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._entries

    def entries(self) -> list[LexicalEntry]:
        """Every entry, in insertion order (a copy)."""
        with self._lock:
            return list(self._entries.values())

    def versions(self) -> dict[str, str]:
        """Chunk id → the version indexed."""
        with self._lock:
            return {e.id: e.version for e in self._entries.values()}

    def upsert(self, entries: Iterable[LexicalEntry]) -> int:
        """Add chunks, replacing any of the same id; returns how many were given."""
        n = 0
        with self._lock:
            for entry in entries:
                self._entries[entry.id] = entry
                n += 1
            if n:
                self._built = None
        return n

    def delete(self, ids: Iterable[str]) -> int:
        """Remove chunks by id; returns how many were indexed (unknown ids are ignored)."""
        n = 0
        with self._lock:
            for chunk_id in ids:
                if self._entries.pop(chunk_id, None) is not None:
                    n += 1
            if n:
                self._built = None
        return n

    def search(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[LexicalMatch]:
        """The ``k`` best chunks for ``query`` by BM25, best first; only those sharing a term with it.

        Args:
            query: Free text, reduced to terms as chunks are (``lexical_terms``).
            k: Most matches returned.
            among: Only these chunk ids compete (a filter's matches); ids not indexed are ignored.
                None: every chunk.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        built = self._index()
        if built is None:
            return []
        token_ids = sorted({built.vocab[t] for t in lexical_terms(query) if t in built.vocab})
        if not token_ids:
            return []
        scores: np.ndarray[Any, np.dtype[np.float32]] = built.model.get_scores_from_ids(token_ids)
        if among is None:
            positions = np.arange(len(built.ids))
        else:
            positions = np.fromiter((built.position[i] for i in among if i in built.position), dtype=np.int64)
        if positions.size == 0:
            return []
        candidate = scores[positions]
        keep = candidate > 0
        positions, candidate = positions[keep], candidate[keep]
        # Best first; equal scores in index order, so results are deterministic.
        order = np.lexsort((positions, -candidate))[:k]
        return [LexicalMatch(built.ids[int(positions[i])], float(candidate[i])) for i in order]

    def _index(self) -> _Built | None:
        with self._lock:
            if self._built is None and self._entries:
                self._built = _Built.of(list(self._entries.values()), self.params)
            return self._built


class _Built(NamedTuple):
    """A bm25s index over a snapshot of the entries; replaced whole on the next change."""

    model: bm25s.BM25
    vocab: Mapping[str, int]
    ids: list[str]
    position: dict[str, int]

    @classmethod
    def of(cls, entries: list[LexicalEntry], params: Bm25Params) -> _Built:
        import bm25s  # numpy only, but not needed until a collection is searched lexically

        model = bm25s.BM25(k1=params.k1, b=params.b, method="lucene")
        # An empty chunk still needs a row: bm25s gives documents without terms the empty token.
        model.index([list(e.terms) for e in entries], create_empty_token=True, show_progress=False)
        ids = [e.id for e in entries]
        vocab = {t: i for t, i in model.vocab_dict.items() if t}
        return cls(model, vocab, ids, {chunk_id: n for n, chunk_id in enumerate(ids)})
