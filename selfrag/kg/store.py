"""The graph store seam: what selfrag needs of a Cypher graph database, and nothing more.

FalkorDB (``selfrag.kg.falkor``) is the implementation tested here; another openCypher database
(Neo4j through its driver) would be one more class with these methods. Every method raises
``GraphUnavailable`` when the server cannot be reached, and ``GraphNotFound`` for a graph that
does not exist (``load`` creates one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from selfrag.kg.cypher import CompiledQuery
from selfrag.kg.data import EdgeRecord, NodeRecord
from selfrag.kg.records import Entity, GraphSummary, LoadReport

__all__ = ["GraphStore"]


class GraphStore(Protocol):
    def ping(self) -> None:
        """Check the server answers.

        Raises:
            GraphUnavailable: it does not.
        """
        ...

    def list_graphs(self) -> list[str]: ...

    def delete_graph(self, graph: str) -> None: ...

    def version(self, graph: str) -> str:
        """A stamp that changes whenever ``graph`` is loaded into or deleted; one cheap round trip.

        Caches of a graph's entities compare it instead of expiring on a timer, so every instance
        sharing the server sees another's load at its next check.
        """
        ...

    def load(self, graph: str, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord]) -> LoadReport:
        """Upsert nodes by id and edges by (source, type, target); loading twice changes nothing.

        Raises:
            GraphDataError: an edge names a node in neither ``nodes`` nor the graph, or a node's id
                is already used by a node of another label. Nothing is written then.
        """
        ...

    def run(self, graph: str, query: CompiledQuery) -> list[list[Any]]:
        """Run a compiled read-only query; its rows."""
        ...

    def find_entities(self, graph: str, name: str, *, label: str | None = None) -> list[Entity]:
        """Entities whose name or an alias equals ``name`` once normalised."""
        ...

    def entities(self, graph: str) -> list[Entity]:
        """Every entity of the graph (for building a matcher or an index)."""
        ...

    def summary(self, graph: str) -> GraphSummary: ...

    def close(self) -> None: ...
