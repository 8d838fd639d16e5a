"""A collection's graph as the self-query reads it, prepared once and shared by every question.

``GraphContexts`` opens the graph store on first use (so a collection without a graph never starts
a FalkorDB server) and keeps, per linked graph, the entity index and relation recogniser built from
the graph's entities. A graph loaded later (another instance, ``selfrag kg load``) is picked up:
each context is rebuilt once it is older than ``max_age_s``.
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


class GraphContexts:
    """The graph store (opened lazily by ``open_store``) and a context per linked graph."""

    def __init__(
        self, open_store: Callable[[], GraphStore], *, embed: Embedder | None = None, max_age_s: float = 30.0
    ) -> None:
        self._open = open_store
        self._store: GraphStore | None = None
        self._embed = embed
        self._max_age_s = max_age_s
        self._cache: dict[GraphLink, tuple[float, GraphContext]] = {}
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
        """The context of ``link``'s graph (rebuilt when older than ``max_age_s``)."""
        now = time.monotonic()
        cached = self._cache.get(link)
        if cached is not None and now - cached[0] < self._max_age_s:
            return cached[1]
        context = GraphContext.build(link, self.store, embed=self._embed)
        self._cache[link] = (now, context)
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
