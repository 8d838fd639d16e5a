"""An in-memory ``GraphStore`` for tests: graph resolution without a FalkorDB server.

It keeps nodes and edges in dictionaries and answers the one kind of Cypher selfrag sends, the
relation templates of ``selfrag.kg.cypher.compile_relation``, by reading the template back into
its hops and walking them (with Cypher's rule that a path uses an edge at most once). Anything
else is refused loudly, so a test can never pass on a query the fake only pretends to run. The
real store's semantics it keeps: loads are idempotent upserts checked before anything is written,
a node keeps its label, names and aliases match once normalised, and every load or delete changes
the graph's version stamp. ``calls`` records every method call, for tests that count round trips.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from selfrag.errors import GraphDataError, GraphNotFound, GraphUnavailable
from selfrag.kg.cypher import ENTITY_LABEL, CompiledQuery
from selfrag.kg.data import EdgeRecord, NodeRecord
from selfrag.kg.records import Entity, GraphSummary, LoadReport
from selfrag.kg.store import GraphStore
from selfrag.lang import normalise

__all__ = ["FakeGraphStore"]

_START = re.compile(rf"MATCH \(s:`{ENTITY_LABEL}`:`(?P<label>[^`]+)` \{{id: \$entity\}}\)")
_HOP = re.compile(r"(?P<left><?)-\[:`(?P<type>[^`]+)`\]-(?P<right>>?)\((?:t)?:`(?P<label>[^`]+)`\)")
_END = " WHERE t <> s RETURN DISTINCT t.id AS id, t.name AS name ORDER BY name LIMIT $limit"


class _Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, NodeRecord] = {}
        self.edges: dict[tuple[str, str, str], EdgeRecord] = {}


class FakeGraphStore:
    """A ``GraphStore`` in memory. ``down = True`` makes every call raise ``GraphUnavailable``."""

    def __init__(self) -> None:
        self._graphs: dict[str, _Graph] = {}
        self._versions: dict[str, int] = {}
        self.down = False
        self.closed = False
        self.calls: list[str] = []

    def _enter(self, method: str) -> None:
        self.calls.append(method)
        if self.down:
            raise GraphUnavailable("the fake graph store is down")

    def _graph(self, graph: str) -> _Graph:
        found = self._graphs.get(graph)
        if found is None:
            raise GraphNotFound(graph)
        return found

    def ping(self) -> None:
        self._enter("ping")

    def list_graphs(self) -> list[str]:
        self._enter("list_graphs")
        return sorted(self._graphs)

    def delete_graph(self, graph: str) -> None:
        self._enter("delete_graph")
        self._graph(graph)
        del self._graphs[graph]
        self._versions[graph] = self._versions.get(graph, 0) + 1

    def version(self, graph: str) -> str:
        self._enter("version")
        return str(self._versions.get(graph, 0))

    def load(self, graph: str, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord]) -> LoadReport:
        self._enter("load")
        g = self._graphs.get(graph) or _Graph()
        for n in nodes:
            known = g.nodes.get(n.id)
            if known is not None and known.label != n.label:
                raise GraphDataError(f"node {n.id!r} already exists in the graph with a label other than {n.label!r}")
        ids = set(g.nodes) | {n.id for n in nodes}
        for i, e in enumerate(edges, 1):
            for end in (e.source, e.target):
                if end not in ids:
                    raise GraphDataError(f"edge {i}: node {end!r} is neither in the nodes file nor in graph {graph!r}")
        created_nodes = sum(n.id not in g.nodes for n in {n.id: n for n in nodes}.values())
        created_edges = len({(e.source, e.type, e.target) for e in edges} - set(g.edges))
        g.nodes.update((n.id, n) for n in nodes)
        g.edges.update(((e.source, e.type, e.target), e) for e in edges)
        self._graphs[graph] = g
        self._versions[graph] = self._versions.get(graph, 0) + 1
        return LoadReport(graph, len(nodes), len(edges), created_nodes, created_edges)

    def run(self, graph: str, query: CompiledQuery) -> list[list[Any]]:
        """Run a ``compile_relation`` query: rows ``[id, name]``, distinct, ordered by name.

        Raises:
            NotImplementedError: the template is not one ``compile_relation`` writes.
        """
        self._enter("run")
        g = self._graph(graph)
        start_label, hops = _parse_relation(query.template)
        start = g.nodes.get(str(query.params["entity"]))
        if start is None or start.label != start_label:
            return []
        # Each path so far: where it stands and the edges it used (a path uses an edge once).
        paths: list[tuple[str, frozenset[tuple[str, str, str]]]] = [(start.id, frozenset())]
        for direction, rtype, label in hops:
            step = []
            for at, used in paths:
                for key in g.edges:
                    source, etype, target = key
                    if etype != rtype or key in used:
                        continue
                    ends = []
                    if direction in ("out", "both") and source == at:
                        ends.append(target)
                    if direction in ("in", "both") and target == at:
                        ends.append(source)
                    step += [(end, used | {key}) for end in ends if g.nodes[end].label == label]
            paths = step
        found = {at: g.nodes[at] for at, _ in paths if at != start.id}
        rows = sorted(([n.id, n.name] for n in found.values()), key=lambda r: r[1])
        return rows[: int(query.params["limit"])]

    def find_entities(self, graph: str, name: str, *, label: str | None = None) -> list[Entity]:
        self._enter("find_entities")
        key = normalise(name)
        hits = [n for n in self._graph(graph).nodes.values()
                if key in {normalise(x) for x in (n.name, *n.aliases)} and (label is None or n.label == label)]
        return [_entity(n) for n in sorted(hits, key=lambda n: n.name)]

    def entities(self, graph: str) -> list[Entity]:
        self._enter("entities")
        return [_entity(n) for n in sorted(self._graph(graph).nodes.values(), key=lambda n: n.id)]

    def summary(self, graph: str) -> GraphSummary:
        self._enter("summary")
        g = self._graph(graph)
        labels: dict[str, int] = {}
        types: dict[str, int] = {}
        for n in g.nodes.values():
            labels[n.label] = labels.get(n.label, 0) + 1
        for _, etype, _ in g.edges:
            types[etype] = types.get(etype, 0) + 1
        return GraphSummary(graph, dict(sorted(labels.items())), dict(sorted(types.items())))

    def close(self) -> None:
        self.closed = True


def _entity(n: NodeRecord) -> Entity:
    return Entity(n.id, n.label, n.name, tuple(n.aliases), dict(n.properties))


def _parse_relation(template: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The start label and the hops ``(direction, type, label)`` of a ``compile_relation`` template."""
    start = _START.match(template)
    if start is None or not template.endswith(_END):
        raise NotImplementedError(f"the fake graph store runs compile_relation queries only, not {template!r}")
    body = template[start.end() : -len(_END)]
    hops = []
    for hop in _HOP.finditer(body):
        direction = "in" if hop["left"] else "out" if hop["right"] else "both"
        hops.append((direction, hop["type"], hop["label"]))
    if "".join(h.group(0) for h in _HOP.finditer(body)) != body or not hops:
        raise NotImplementedError(f"the fake graph store cannot read the path of {template!r}")
    return start["label"], hops


def _keeps_the_protocol(store: FakeGraphStore) -> GraphStore:
    return store  # mypy --strict fails here the day the fake and the Protocol part ways
