"""The FalkorDB graph store against a real server on 127.0.0.1: resolution, idempotent loads,
injection attempts, and a server that is down."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfrag.errors import GraphDataError, GraphNotFound, GraphUnavailable, InvalidFilter, UsageError
from selfrag.kg import (
    CompiledQuery,
    EdgeRecord,
    FalkorGraphStore,
    GraphLink,
    NodeRecord,
    open_graph_store,
    read_edges,
    read_nodes,
    resolve_relation,
)
from tests.kg.conftest import SAMPLE
from tests.servers import free_port

_names = itertools.count()


@pytest.fixture
def store(falkordb_url: str, tmp_path: Path) -> Iterator[FalkorGraphStore]:
    with open_graph_store(tmp_path, falkordb_url) as s:
        yield s


@pytest.fixture
def companies(store: FalkorGraphStore) -> Iterator[str]:
    name = f"companies_{next(_names)}"
    store.load(name, read_nodes(SAMPLE / "graph" / "nodes.jsonl"), read_edges(SAMPLE / "graph" / "edges.jsonl"))
    yield name
    store.delete_graph(name)


def _link(link: GraphLink, graph: str) -> GraphLink:
    return link.model_copy(update={"graph": graph})


def _entity(store: FalkorGraphStore, graph: str, name: str):  # type: ignore[no-untyped-def]
    found = store.find_entities(graph, name)
    assert len(found) == 1, found
    return found[0]


def test_one_hop_two_hops_and_direction(store: FalkorGraphStore, companies: str, companies_link: GraphLink) -> None:
    link = _link(companies_link, companies)
    rod = _entity(store, companies, "Rod Halverson")
    res = resolve_relation(store, link, "board_member", rod)
    assert res.names == ["Cobalt Analytics", "Graphwise", "Harbor Bank", "Nimbus Cloud"]
    assert res.attribute == "organizations" and res.params == {"entity": rod.id, "limit": 10_000}
    assert "$entity" in res.template and "Rod" not in res.template

    france = _entity(store, companies, "France")
    assert resolve_relation(store, link, "in_country", france).names == [
        "Alto Aerospace", "Bellamy & Co", "Opaline Pharma", "Paloma Labs", "Sorel Glass", "Verdant Power",
    ]
    ferrox = _entity(store, companies, "Ferrox Steel")
    assert resolve_relation(store, link, "supplies", ferrox).names == [
        "Alto Aerospace", "Halvard Motors", "Kestrel Automotive", "Norrland Trucks",
    ]
    assert resolve_relation(store, link, "suppliers", ferrox).names == ["Helios Energy"]
    nimbus = _entity(store, companies, "Nimbus Cloud")
    assert resolve_relation(store, link, "competitors", nimbus).names == ["Cobalt Analytics"]  # stored the other way
    assert resolve_relation(store, link, "invested_in", nimbus).names == []  # empty: an answer, not an error


def test_resolution_checks_the_relation_and_the_start_label(store: FalkorGraphStore, companies: str, companies_link: GraphLink) -> None:
    link = _link(companies_link, companies)
    rod = _entity(store, companies, "Rod Halverson")
    with pytest.raises(InvalidFilter, match="unknown relation 'owns'"):
        resolve_relation(store, link, "owns", rod)
    with pytest.raises(InvalidFilter, match="starts at a Organization"):
        resolve_relation(store, link, "suppliers", rod)


def test_loading_twice_changes_nothing_and_a_later_file_updates_by_id(store: FalkorGraphStore, companies: str) -> None:
    before = store.summary(companies)
    report = store.load(companies, read_nodes(SAMPLE / "graph" / "nodes.jsonl"), read_edges(SAMPLE / "graph" / "edges.jsonl"))
    assert (report.nodes_created, report.edges_created) == (0, 0)
    assert store.summary(companies) == before
    assert sum(before.labels.values()) == 111 and sum(before.types.values()) == 238

    store.load(companies, [NodeRecord(id="org:graphwise", label="Organization", name="Graphwise", aliases=("GW",),
                                      properties={"industry": "graphs"})], [])
    gw = _entity(store, companies, "GW")
    assert (gw.name, gw.aliases, gw.properties) == ("Graphwise", ("GW",), {"industry": "graphs"})
    assert store.find_entities(companies, "Graphwise Inc.") == []  # the old alias went with the update


def test_a_bad_load_writes_nothing(store: FalkorGraphStore, companies: str) -> None:
    before = store.summary(companies)
    new = NodeRecord(id="org:new", label="Organization", name="Newco")
    with pytest.raises(GraphDataError, match="node 'ghost' is neither in the nodes file nor in graph"):
        store.load(companies, [new], [EdgeRecord(source="org:new", type="SUPPLIES", target="ghost")])
    with pytest.raises(GraphDataError, match="already exists in the graph with a label other than 'City'"):
        store.load(companies, [NodeRecord(id="org:graphwise", label="City", name="Graphwise")], [])
    assert store.summary(companies) == before
    fresh = f"fresh_{next(_names)}"
    with pytest.raises(GraphDataError, match="ghost"):
        store.load(fresh, [new], [EdgeRecord(source="org:new", type="SUPPLIES", target="ghost")])
    assert fresh not in store.list_graphs()


HOSTILE = [
    "x' OR 1=1 //",
    'x" }) MATCH (n) DETACH DELETE n //',
    "x`}) DETACH DELETE n",
    "Robert'); MATCH (n) DETACH DELETE n; --",
    "{id: 'org:graphwise'}",
    "/* comment */ DETACH DELETE",
    "back\\slash \\' \\\" end",
    "line\nbreak\r\tand unicode ☃",
]


def test_hostile_names_are_stored_and_found_as_literals(store: FalkorGraphStore) -> None:
    graph = f"hostile_{next(_names)}"
    nodes = [NodeRecord(id=f"n{i}", label="Organization", name=h, aliases=(h + " alias",), properties={"note": h})
             for i, h in enumerate(HOSTILE)]
    nodes.append(NodeRecord(id="keep", label="Organization", name="Keep Me"))
    store.load(graph, nodes, [EdgeRecord(source="n0", type="SUPPLIES", target="keep", properties={"why": HOSTILE[1]})])
    stored = {e.id: e for e in store.entities(graph)}
    for i, h in enumerate(HOSTILE):
        assert (stored[f"n{i}"].name, stored[f"n{i}"].aliases, stored[f"n{i}"].properties) == (h, (h + " alias",), {"note": h})
    assert store.summary(graph).labels == {"Organization": len(HOSTILE) + 1}
    store.delete_graph(graph)


def test_hostile_values_in_questions_change_nothing(store: FalkorGraphStore, companies: str, companies_link: GraphLink) -> None:
    link = _link(companies_link, companies)
    before = store.summary(companies)
    for h in HOSTILE:
        assert store.find_entities(companies, h) == []
        assert store.find_entities(companies, "Graphwise", label=h) == []
        # A hostile entity id (what a relation value could become) runs as a parameter: no rows, no harm.
        assert store.run(companies, CompiledQuery("MATCH (s:`Entity` {id: $entity})-[*1..2]-(t) RETURN t.id", {"entity": h})) == []
    rod = _entity(store, companies, "Rod Halverson")
    hostile_rod = rod.__class__(HOSTILE[1], rod.label, rod.name)
    assert resolve_relation(store, link, "board_member", hostile_rod).entities == ()
    assert store.summary(companies) == before


def test_a_write_through_run_is_refused(store: FalkorGraphStore, companies: str) -> None:
    before = store.summary(companies)
    with pytest.raises(GraphUnavailable, match="refused a request"):
        store.run(companies, CompiledQuery("MATCH (n) DETACH DELETE n"))  # run is read-only
    assert store.summary(companies) == before


def test_graph_names_are_identifiers_and_unknown_graphs_are_named(store: FalkorGraphStore) -> None:
    with pytest.raises(UsageError, match="graph name"):
        store.summary("g`) DELETE")
    with pytest.raises(GraphNotFound, match="knowledge graph 'nope' does not exist"):
        store.summary("nope")
    with pytest.raises(GraphNotFound):
        store.delete_graph("nope")


def test_a_server_that_is_down_is_graph_unavailable_without_internals(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(GraphUnavailable) as info:
        open_graph_store(tmp_path, f"redis://127.0.0.1:{port}", timeout_s=1.0)
    err = info.value
    assert err.code == "graph_unavailable" and err.status == 503
    assert err.one_line() == "the graph server is unreachable; try again later"
    assert str(port) not in err.message and "Error" not in err.message
    assert err.detail  # the driver's words are kept for the log


def test_a_server_that_goes_down_mid_session(falkordb_url: str, tmp_path: Path) -> None:
    import redis

    store = open_graph_store(tmp_path, falkordb_url)
    try:
        # Kill this client's connections from the server side: the next call meets a dead socket.
        admin = redis.Redis.from_url(falkordb_url)
        store.ping()
        admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        admin.close()
        store.ping()  # redis-py reconnects once: a dropped connection is not an outage
    finally:
        store.close()


def test_the_version_changes_with_every_load_and_delete(store: FalkorGraphStore, companies: str) -> None:
    first = store.version(companies)
    assert store.version(companies) == first  # reading does not change it
    store.load(companies, [NodeRecord(id="org:versioned", label="Organization", name="Versioned")], [])
    second = store.version(companies)
    assert second != first
    store.delete_graph(companies)
    assert store.version(companies) not in (first, second)
    store.load(companies, read_nodes(SAMPLE / "graph" / "nodes.jsonl"), read_edges(SAMPLE / "graph" / "edges.jsonl"))


def test_another_instance_sees_a_new_entity_within_seconds(falkordb_url: str, tmp_path: Path, companies: str,
                                                            companies_link: GraphLink) -> None:
    """Issue 25 item 7: two instances share one graph server; one loads an entity, the other's next
    question within five seconds knows it (a version check against the server, not a 30 s cache)."""
    import time

    from selfrag.kg import GraphContexts

    link = _link(companies_link, companies)
    a = GraphContexts(lambda: open_graph_store(tmp_path / "a", falkordb_url))
    b = GraphContexts(lambda: open_graph_store(tmp_path / "b", falkordb_url))
    try:
        assert b.get(link).index.get("org:newco") is None
        a.store.load(companies, [NodeRecord(id="org:newco", label="Organization", name="Newco Holdings")], [])
        deadline = time.monotonic() + 5.0
        while b.get(link).index.get("org:newco") is None:
            assert time.monotonic() < deadline, "instance B did not see A's new entity within 5 s"
            time.sleep(0.1)
    finally:
        a.close()
        b.close()
