"""A collection's graph as the self-query reads it, prepared once and shared by every question.

``GraphContexts`` opens the graph store on first use (so a collection without a graph never starts
a FalkorDB server) and keeps, per linked graph, the entity index and relation recogniser built from
the graph's entities. A graph loaded later (another instance, ``selfrag kg load``) is picked up at
the first question after it: a context older than ``recheck_s`` (1 s) compares the graph's version
stamp on the server (one Redis ``GET``) and is rebuilt when it changed. So an instance sees another
instance's load within ``recheck_s`` plus the rebuild, and an unchanged graph is never re-read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from selfrag.kg.entities import EntityIndex
from selfrag.kg.mentions import MentionMatcher
from selfrag.kg.recognition import Embedder, RelationRecogniser
from selfrag.kg.schema import GraphLink
from selfrag.kg.store import GraphStore

__all__ = ["GraphContext", "GraphContexts"]


@dataclass(frozen=True)
class GraphContext:
    """One linked graph's entities and the recogniser over them."""

    link: GraphLink
    index: EntityIndex
    recogniser: RelationRecogniser

    @classmethod
    def build(cls, link: GraphLink, store: GraphStore, *, embed: Embedder | None = None) -> GraphContext:
        """Read the linked graph's entities from ``store``.

        Raises:
            GraphNotFound: the graph is not loaded. GraphUnavailable: the server is down.
        """
        index = EntityIndex(store.entities(link.graph))
        return cls(link, index, RelationRecogniser(link, index, matcher=MentionMatcher(index.entities), embed=embed))


@dataclass(frozen=True)
class _Cached:
    checked_at: float
    version: str
    context: GraphContext


class GraphContexts:
    """The graph store (opened lazily by ``open_store``) and a context per linked graph."""

    def __init__(
        self, open_store: Callable[[], GraphStore], *, embed: Embedder | None = None, recheck_s: float = 1.0
    ) -> None:
        self._open = open_store
        self._store: GraphStore | None = None
        self._embed = embed
        self._recheck_s = recheck_s
        self._cache: dict[GraphLink, _Cached] = {}
        self._lock = threading.Lock()

    @property
    def store(self) -> GraphStore:
        """The graph store, opened on first use.

        Raises:
            GraphUnavailable: it cannot be reached (or the embedded server cannot start).
        """
        with self._lock:
            if self._store is None:
                self._store = self._open()
            return self._store

    def get(self, link: GraphLink) -> GraphContext:
        """The context of ``link``'s graph (rebuilt when the graph's version stamp changed).

        Raises:
            GraphNotFound: the graph is not loaded. GraphUnavailable: the server is down.
        """
        now = time.monotonic()
        cached = self._cache.get(link)
        if cached is not None and now - cached.checked_at < self._recheck_s:
            return cached.context
        store = self.store
        version = store.version(link.graph)  # read before the entities: a load in between rebuilds again
        if cached is not None and cached.version == version:
            self._cache[link] = _Cached(now, version, cached.context)
            return cached.context
        context = GraphContext.build(link, store, embed=self._embed)
        self._cache[link] = _Cached(now, version, context)
        return context

    @property
    def opened(self) -> bool:
        """Whether the store has been opened (an embedded server started) yet."""
        return self._store is not None

    def ping(self) -> None:
        """Check the graph server answers (``/readyz``).

        Raises:
            GraphUnavailable: it does not.
        """
        self.store.ping()

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
            self._cache.clear()
