"""The fake graph store (``selfrag.kg.fake``): it answers what FalkorDB answers, so graph resolution
has a fast path in tests, from ``resolve_relation`` up to the engine's ``graph_resolve`` node.

The contract half runs every declared relation of the companies sample from every entity it can
start at, in the fake and in the session's real FalkorDB, and compares the rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import GraphDataError, GraphNotFound, GraphUnavailable
from selfrag.kg import (
    FalkorGraphStore,
    GraphContexts,
    GraphLink,
    GraphStore,
    compile_relation,
    open_graph_store,
    read_edges,
    read_nodes,
    resolve_relation,
)
from selfrag.kg.cypher import CompiledQuery
from selfrag.kg.data import EdgeRecord, NodeRecord
from selfrag.kg.fake import FakeGraphStore
from selfrag.retry import RetryPolicy
from selfrag.samples import ingest_sample
from selfrag.store import Store
from selfrag.testing import HashEmbeddings, ScriptedChatModel, verdict
from tests.kg.conftest import SAMPLE
from workflows import Components, RunOptions, SelfRagEngine

DEVSET = Path(__file__).resolve().parents[2] / "eval" / "sets" / "companies" / "questions.jsonl"
TODAY = date(2025, 12, 31)


def _loaded(store: GraphStore, link: GraphLink) -> GraphStore:
    store.load(link.graph, read_nodes(SAMPLE / "graph" / "nodes.jsonl"), read_edges(SAMPLE / "graph" / "edges.jsonl"))
    return store


@pytest.fixture
def fake(companies_link: GraphLink) -> FakeGraphStore:
    store = FakeGraphStore()
    _loaded(store, companies_link)
    return store


def _relation_questions() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in DEVSET.read_text().splitlines() if line.strip()]
    return [r for r in rows if len(r["relations"]) == 1 and not r["clarify"] and r["entities"]]


@pytest.mark.parametrize("q", _relation_questions(), ids=lambda q: q["id"])
def test_the_fake_resolves_the_dev_sets_relations(fake: FakeGraphStore, companies_link: GraphLink, q: dict[str, Any]) -> None:
    [rel] = q["relations"]
    declared = companies_link.relation(rel["relation"])
    assert declared is not None
    [entity] = fake.find_entities(companies_link.graph, rel["value"], label=declared.start)
    res = resolve_relation(fake, companies_link, rel["relation"], entity)
    assert sorted(e.name for e in res.entities) == q["entities"]


def test_loads_are_checked_upserts_and_change_the_version(fake: FakeGraphStore, companies_link: GraphLink) -> None:
    g = companies_link.graph
    before = fake.version(g)
    again = _loaded(fake, companies_link)
    assert fake.version(g) != before
    report = again.load(g, [NodeRecord(id="n-new", label="Person", name="New Person")], [])
    assert (report.nodes, report.nodes_created) == (1, 1)
    some = fake.entities(g)[0]
    with pytest.raises(GraphDataError, match="label other than"):
        fake.load(g, [NodeRecord(id=some.id, label="City" if some.label != "City" else "Person", name="x")], [])
    with pytest.raises(GraphDataError, match="neither in the nodes file nor in graph"):
        fake.load(g, [], [EdgeRecord(source=some.id, type="KNOWS", target="nowhere")])
    assert fake.summary(g).labels["Person"] >= 1
    with pytest.raises(GraphNotFound):
        fake.entities("no-such-graph")
    with pytest.raises(NotImplementedError):
        fake.run(g, CompiledQuery("MATCH (n) RETURN n"))
    fake.down = True
    with pytest.raises(GraphUnavailable):
        fake.ping()


def test_the_fake_answers_what_falkordb_answers(falkordb_url: str, companies_link: GraphLink, fake: FakeGraphStore,
                                                tmp_path: Path) -> None:
    real: FalkorGraphStore = open_graph_store(tmp_path, falkordb_url)
    try:
        _loaded(real, companies_link)
        g = companies_link.graph
        assert [e.id for e in fake.entities(g)] == [e.id for e in real.entities(g)]
        assert fake.summary(g) == real.summary(g)
        assert fake.find_entities(g, "HALVARD motors") == real.find_entities(g, "HALVARD motors")
        compared = 0
        for relation in companies_link.relations:
            for entity in fake.entities(g):
                if entity.label != relation.start:
                    continue
                query = compile_relation(relation, entity.id)
                assert fake.run(g, query) == real.run(g, query), (relation.name, entity.name)
                compared += 1
        assert compared > 50
    finally:
        real.close()


# -- graph_resolve through the engine, without a FalkorDB server -----------------------------------
@pytest.fixture
def companies(tmp_path: Path) -> Iterator[tuple[Store, FakeGraphStore]]:
    import chromadb

    from selfrag.store import chroma_settings

    graph = FakeGraphStore()
    store = Store(chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()),
                  HashEmbeddings(), batch_size=64)
    ingest_sample(store, "companies", graph=graph)  # loads the sample's graph into the fake first
    yield store, graph
    store.close()


def _engine(store: Store, graph: FakeGraphStore) -> SelfRagEngine:
    script = {"RelevanceGrade": verdict("relevant"), "generate": "An answer [1].",
              "GroundednessGrade": verdict("grounded"), "UsefulnessGrade": verdict("useful")}
    components = Components.from_model(ScriptedChatModel.from_rules(script), store,
                                       retry=RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0),
                                       self_query_mode="rules", parallel_checks=False)
    components.graphs = GraphContexts(lambda: graph)
    return SelfRagEngine(components, defaults=RunOptions(top_k=4), today=lambda: TODAY)


def test_graph_resolve_filters_the_search_by_the_fakes_entity_set(companies: tuple[Store, FakeGraphStore]) -> None:
    store, graph = companies
    q = next(r for r in _relation_questions() if r["id"] == "c01")
    result = _engine(store, graph).run(q["question"], collection="companies")
    assert result.trace.path[:4] == ["condense", "self_query", "graph_resolve", "retrieve"]
    [res] = result.trace.plan["graph"]["resolutions"]
    assert res["relation"] == "board_member" and sorted(e["name"] for e in res["entities"]) == q["entities"]
    assert "run" in graph.calls  # resolved in the fake, not elsewhere
    assert result.citations
    assert all(set(c.metadata["organizations"]) & set(q["entities"]) for c in result.citations)  # type: ignore[arg-type]
    assert result.outcome == "answered"


def test_an_empty_entity_set_is_said_not_searched_without_the_condition(companies: tuple[Store, FakeGraphStore]) -> None:
    store, graph = companies
    q = next(r for r in _relation_questions() if r["id"] == "c01")
    person = q["relations"][0]["value"]
    [entity] = graph.find_entities("companies", person)
    graph._graphs["companies"].edges = {k: e for k, e in graph._graphs["companies"].edges.items()
                                        if entity.id not in (k[0], k[2])}  # the person's board seats are gone
    result = _engine(store, graph).run(q["question"], collection="companies")
    assert "graph_resolve" in result.trace.path and "retrieve" not in result.trace.path
    assert result.trace.plan["graph"]["resolutions"][0]["entities"] == []
    assert not result.citations
