"""The FalkorDB graph store, embedded (``EmbeddedGraphServer``) or external (``redis://host:port``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from selfrag.deadline import current_deadline
from selfrag.errors import (
    ConfigError,
    DeadlineExceeded,
    GraphDataError,
    GraphNotFound,
    GraphUnavailable,
    UsageError,
    describe,
)
from selfrag.kg.cypher import ENTITY_LABEL, CompiledQuery, quote
from selfrag.kg.data import RESERVED_PROPERTIES, EdgeRecord, NodeRecord
from selfrag.kg.records import Entity, GraphSummary, LoadReport
from selfrag.kg.schema import check_identifier
from selfrag.kg.server import EmbeddedGraphServer, ServerAddress, connect
from selfrag.lang import normalise

__all__ = ["BATCH", "FalkorGraphStore", "open_graph_store"]

BATCH = 500
"""Rows per UNWIND: large enough to amortise a round trip, small enough for one query's memory."""

T = TypeVar("T")

_ENTITY = quote(ENTITY_LABEL)
_VERSION_KEY = "selfrag:graph-version:{}"
"""A plain Redis counter beside each graph, bumped by every load and delete: instances that cache a
graph's entities compare it per question instead of re-reading the graph on a timer."""
_RETURN_ENTITY = "RETURN n.id, labels(n), n.name, n.aliases, properties(n)"


def _check_deadline(graph: str) -> None:
    """Between two batches of a load: stop once the request's deadline (``selfrag.deadline``) has
    passed. What was written stays; the load is an idempotent upsert, so sending it again completes it."""
    deadline = current_deadline()
    if deadline is not None and time.monotonic() >= deadline:
        raise DeadlineExceeded(
            f"loading graph {graph!r} did not finish within the upload's deadline; part of it is written: "
            "send the same data again to complete it, or send it in smaller parts"
        )


def _address_of(url: str) -> ServerAddress:
    parts = urlsplit(url)
    if parts.scheme != "redis" or not parts.hostname:
        raise ConfigError("the graph URL must look like redis://host:port (or redis://:password@host:port)")
    try:
        port = parts.port or 6379
    except ValueError:
        raise ConfigError("the graph URL has an invalid port") from None
    return ServerAddress(host=parts.hostname, port=port, password=parts.password)


def _entity(row: Sequence[Any]) -> Entity:
    node_id, labels, name, aliases, props = row
    label = next((lbl for lbl in labels if lbl != ENTITY_LABEL), ENTITY_LABEL)
    properties = {k: v for k, v in dict(props).items() if k not in RESERVED_PROPERTIES}
    return Entity(str(node_id), label, str(name), tuple(aliases or ()), properties)


class FalkorGraphStore:
    """A ``GraphStore`` on one FalkorDB server. ``close`` releases the embedded server, if any."""

    def __init__(self, address: ServerAddress, *, server: EmbeddedGraphServer | None = None, timeout_s: float = 30.0) -> None:
        self._server = server
        # The client asks the server about itself (cluster? sentinel?) as it is built: I/O already.
        with self._errors():
            self._db = connect(address, timeout_s=timeout_s)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import redis

        try:
            yield
        except (GraphNotFound, GraphDataError, UsageError, DeadlineExceeded):
            raise
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            raise GraphUnavailable("the graph server is unreachable; try again later", detail=describe(exc)) from exc
        except redis.exceptions.RedisError as exc:
            raise GraphUnavailable("the graph server refused a request", detail=describe(exc)) from exc

    def _call(self, fn: Callable[[], T]) -> T:
        with self._errors():
            return fn()

    @staticmethod
    def _check_name(graph: str) -> None:
        try:
            check_identifier(graph, "graph name")
        except ValueError as exc:
            raise UsageError(str(exc)) from None

    def _graph(self, graph: str, *, must_exist: bool = True) -> Any:
        self._check_name(graph)
        if must_exist and graph not in self.list_graphs():
            raise GraphNotFound(graph)
        return self._db.select_graph(graph)

    def ping(self) -> None:
        self._call(self._db.connection.ping)

    def list_graphs(self) -> list[str]:
        return sorted(self._call(self._db.list_graphs))

    def delete_graph(self, graph: str) -> None:
        g = self._graph(graph)
        self._call(g.delete)
        self._bump(graph)

    def version(self, graph: str) -> str:
        self._check_name(graph)
        value = self._call(lambda: self._db.connection.get(_VERSION_KEY.format(graph)))
        return "0" if value is None else value.decode() if isinstance(value, bytes) else str(value)

    def _bump(self, graph: str) -> None:
        # Never reset (a deleted and re-created graph must not repeat an old version).
        self._call(lambda: self._db.connection.incr(_VERSION_KEY.format(graph)))

    def run(self, graph: str, query: CompiledQuery) -> list[list[Any]]:
        g = self._graph(graph)
        result = self._call(lambda: g.ro_query(query.template, dict(query.params)))
        return [list(row) for row in result.result_set]

    def find_entities(self, graph: str, name: str, *, label: str | None = None) -> list[Entity]:
        g = self._graph(graph)
        params: dict[str, Any] = {"key": normalise(name)}
        where = "$key IN n.keys"
        if label is not None:
            where += " AND $label IN labels(n)"
            params["label"] = label
        rows = self._call(lambda: g.ro_query(f"MATCH (n:{_ENTITY}) WHERE {where} {_RETURN_ENTITY} ORDER BY n.name", params))
        return [_entity(r) for r in rows.result_set]

    def entities(self, graph: str) -> list[Entity]:
        g = self._graph(graph)
        rows = self._call(lambda: g.ro_query(f"MATCH (n:{_ENTITY}) {_RETURN_ENTITY} ORDER BY n.id"))
        return [_entity(r) for r in rows.result_set]

    def summary(self, graph: str) -> GraphSummary:
        g = self._graph(graph)
        labels = self._call(lambda: g.ro_query(f"MATCH (n:{_ENTITY}) UNWIND labels(n) AS l RETURN l, count(*) ORDER BY l"))
        types = self._call(lambda: g.ro_query("MATCH ()-[e]->() RETURN type(e), count(e) ORDER BY type(e)"))
        return GraphSummary(
            graph,
            {str(lbl): int(c) for lbl, c in labels.result_set if lbl != ENTITY_LABEL},
            {str(t): int(c) for t, c in types.result_set},
        )

    def load(self, graph: str, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord]) -> LoadReport:
        g = self._graph(graph, must_exist=False)
        exists = graph in self.list_graphs()
        with self._errors():
            if exists:
                self._check_against_graph(g, nodes, edges)
            else:
                self._check_endpoints(edges, {n.id for n in nodes}, graph)
            if not exists or not any(
                row[0] == ENTITY_LABEL for row in g.ro_query("CALL db.indexes() YIELD label RETURN label").result_set
            ):
                g.query(f"CREATE INDEX FOR (n:{_ENTITY}) ON (n.id)")
            created_nodes = created_edges = 0
            for label, group in groupby(sorted(nodes, key=lambda n: n.label), key=lambda n: n.label):
                rows = [
                    {"id": n.id, "all": {**n.properties, "id": n.id, "name": n.name, "aliases": list(n.aliases),
                                         "keys": sorted({normalise(x) for x in (n.name, *n.aliases)} - {""})}}
                    for n in group
                ]
                template = f"UNWIND $rows AS r MERGE (n:{_ENTITY} {{id: r.id}}) SET n:{quote(label)}, n = r.all"
                for i in range(0, len(rows), BATCH):
                    _check_deadline(graph)
                    created_nodes += int(g.query(template, {"rows": rows[i : i + BATCH]}).nodes_created)
            for rtype, egroup in groupby(sorted(edges, key=lambda e: e.type), key=lambda e: e.type):
                erows = [{"s": e.source, "t": e.target, "p": e.properties} for e in egroup]
                template = (
                    f"UNWIND $rows AS r MATCH (a:{_ENTITY} {{id: r.s}}) MATCH (b:{_ENTITY} {{id: r.t}}) "
                    f"MERGE (a)-[e:{quote(rtype)}]->(b) SET e = r.p"
                )
                for i in range(0, len(erows), BATCH):
                    _check_deadline(graph)
                    created_edges += int(g.query(template, {"rows": erows[i : i + BATCH]}).relationships_created)
        self._bump(graph)
        return LoadReport(graph, len(nodes), len(edges), created_nodes, created_edges)

    @staticmethod
    def _check_endpoints(edges: Sequence[EdgeRecord], known: set[str], graph: str) -> None:
        for i, e in enumerate(edges, 1):
            for end in (e.source, e.target):
                if end not in known:
                    raise GraphDataError(f"edge {i}: node {end!r} is neither in the nodes file nor in graph {graph!r}")

    def _check_against_graph(self, g: Any, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord]) -> None:
        rows = [{"id": n.id, "label": n.label} for n in nodes]
        for i in range(0, len(rows), BATCH):
            clash = g.ro_query(
                f"UNWIND $rows AS r MATCH (n:{_ENTITY} {{id: r.id}}) WHERE NOT r.label IN labels(n) "
                "RETURN n.id, r.label LIMIT 1", {"rows": rows[i : i + BATCH]},
            ).result_set
            if clash:
                raise GraphDataError(f"node {clash[0][0]!r} already exists in the graph with a label other than {clash[0][1]!r}")
        known = {n.id for n in nodes}
        missing = sorted({end for e in edges for end in (e.source, e.target)} - known)
        for i in range(0, len(missing), BATCH):
            found = g.ro_query(f"UNWIND $ids AS i MATCH (n:{_ENTITY} {{id: i}}) RETURN n.id", {"ids": missing[i : i + BATCH]})
            known.update(str(r[0]) for r in found.result_set)
        self._check_endpoints(edges, known, g.name)

    def close(self) -> None:
        self._db.connection.close()
        if self._server is not None:
            self._server.release()
            self._server = None

    def __enter__(self) -> FalkorGraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_graph_store(data_dir: Path, url: str | None = None, *, timeout_s: float = 30.0) -> FalkorGraphStore:
    """The graph store: the external server at ``url``, or the embedded one under ``data_dir/graph``.

    Raises:
        ConfigError: ``url`` is not ``redis://host:port``.
        GraphUnavailable: the embedded server cannot start, or the server does not answer.
    """
    if url:
        store = FalkorGraphStore(_address_of(url), timeout_s=timeout_s)
    else:
        server = EmbeddedGraphServer(data_dir / "graph")
        address = server.acquire()
        try:
            store = FalkorGraphStore(address, server=server, timeout_s=timeout_s)
        except GraphUnavailable:
            server.release()
            raise
    try:
        store.ping()
    except GraphUnavailable:
        store.close()
        raise
    return store
