"""Item 2-4 through the engine: relation conditions resolved in a real FalkorDB, the trace, the
empty-set answer, a clarification round-trip on a thread, latest-first, named ranges, dates, and a
graph server that is down — over the companies sample in a real Chroma."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from selfrag.errors import GraphUnavailable
from selfrag.kg import FalkorGraphStore, GraphContexts, open_graph_store
from selfrag.retry import RetryPolicy
from selfrag.samples import ingest_sample
from selfrag.store import Store
from selfrag.testing import ScriptedChatModel, verdict
from tests.servers import free_port
from workflows import Components, ResourceSearch, Result, RunOptions, SelfRagEngine

TODAY = date(2025, 12, 31)
FAST = RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0)
DEVSET = Path(__file__).resolve().parents[2] / "eval" / "sets" / "companies" / "questions.jsonl"


def _dev(qid: str) -> dict[str, Any]:
    return next(r for r in map(json.loads, DEVSET.read_text().splitlines()) if r["id"] == qid)


def _script() -> dict[str, Any]:
    return {"RelevanceGrade": verdict("relevant"), "generate": "An answer [1].",
            "GroundednessGrade": verdict("grounded"), "UsefulnessGrade": verdict("useful")}


@pytest.fixture
def make(companies: Store, falkordb_url: str, tmp_path: Path) -> Callable[..., SelfRagEngine]:
    def build(*, url: str = falkordb_url, checkpointer: Any = None, defaults: RunOptions | None = None) -> SelfRagEngine:
        model = ScriptedChatModel.from_rules(_script())
        components = Components.from_model(model, companies, retry=FAST, self_query_mode="rules", parallel_checks=False)
        components.graphs = GraphContexts(lambda: open_graph_store(tmp_path, url))
        return SelfRagEngine(components, defaults=defaults or RunOptions(top_k=4), checkpointer=checkpointer,
                             today=lambda: TODAY)

    return build


def _orgs(result: Result) -> list[set[str]]:
    return [set(c.metadata["organizations"]) for c in result.citations]  # type: ignore[arg-type]


def test_one_hop_relation_resolves_in_the_graph_and_filters_the_search(make: Callable[..., SelfRagEngine]) -> None:
    q = _dev("c01")
    result = make().run(q["question"], collection="companies")
    assert result.trace.path[:4] == ["condense", "self_query", "graph_resolve", "retrieve"]
    graph = result.trace.plan["graph"]
    [res] = graph["resolutions"]
    # The trace holds the compiled Cypher template, its parameters (the entity as a parameter,
    # never in the text) and the resolved entity set.
    assert res["relation"] == "board_member" and res["entity"]["name"] == "Rod Halverson"
    assert res["entity"]["id"] in res["params"].values() and res["entity"]["id"] not in res["template"]
    assert sorted(e["name"] for e in res["entities"]) == q["entities"]
    assert '{"organizations": {"$contains": "Graphwise"}}' in json.dumps(result.filter)
    assert all(o & set(q["entities"]) for o in _orgs(result)) and result.citations
    assert result.outcome == "answered"


@pytest.mark.parametrize("qid", ["c03", "c04", "c02"])
def test_two_hops_and_direction(make: Callable[..., SelfRagEngine], qid: str) -> None:
    q = _dev(qid)
    result = make().run(q["question"], collection="companies")
    [res] = result.trace.plan["graph"]["resolutions"]
    assert res["relation"] == q["relations"][0]["relation"]
    assert sorted(e["name"] for e in res["entities"]) == q["entities"]
    for doc in result.trace.documents:
        assert set(doc["metadata"]["organizations"]) & set(q["entities"])


def test_an_empty_entity_set_ends_the_run_saying_so(make: Callable[..., SelfRagEngine]) -> None:
    result = make().run(_dev("c36")["question"], collection="companies")
    assert result.outcome == "abstained" and result.citations == []
    assert "Ingrid Solberg has no Organization through 'board_member'" in result.answer
    assert "retrieve" not in result.trace.path and result.trace.plan["graph"]["resolutions"][0]["entities"] == []


def test_a_clarification_round_trip_on_a_thread(make: Callable[..., SelfRagEngine]) -> None:
    engine = make(checkpointer=InMemorySaver())
    first = engine.run("Who supplies Mercury?", collection="companies", thread_id="t1")
    assert first.outcome == "needs_clarification" and first.clarification is not None
    names = [c["name"] for c in first.clarification["candidates"]]
    assert names == ["Mercury Motors", "Mercury Records"]
    assert all(c["differences"] for c in first.clarification["candidates"])  # what tells them apart
    assert "1. Mercury Motors" in first.answer and "2. Mercury Records" in first.answer
    assert "retrieve" not in first.trace.path
    second = engine.run("the first one", collection="companies", thread_id="t1")
    assert second.standalone_question == "Who supplies Mercury?"
    [res] = second.trace.plan["graph"]["resolutions"]
    assert res["entity"]["name"] == "Mercury Motors" and res["relation"] == "suppliers" and res["entities"]
    assert second.outcome != "needs_clarification" and second.clarification is None
    # A reply by name works too, and a new question drops the pending one.
    engine.run("Who supplies Mercury?", collection="companies", thread_id="t2")
    by_name = engine.run("Mercury Records", collection="companies", thread_id="t2")
    assert by_name.trace.plan["graph"]["resolutions"][0]["entity"]["name"] == "Mercury Records"


def test_latest_first_skips_the_vector_search(make: Callable[..., SelfRagEngine], companies: Store) -> None:
    result = make().run("What is the latest positive news about Graphwise?", collection="companies")
    assert "latest" in result.trace.path and "retrieve" not in result.trace.path
    latest = result.trace.plan["latest"]
    assert latest["attribute"] == "date"
    coll = companies.get_collection("companies")
    everything = coll.get([f"news-{n:03d}" for n in range(1, 131)])
    matching = sorted(
        (c for c in everything if "Graphwise" in c.metadata.get("organizations", []) and float(c.metadata["sentiment"]) > 0.5),  # type: ignore[operator, arg-type]
        key=lambda c: str(c.metadata["date"]), reverse=True,
    )
    assert latest["documents"] == [c.id for c in matching[:4]] and matching


def test_named_ranges_and_dates_become_conditions(make: Callable[..., SelfRagEngine]) -> None:
    result = make().run("Are there negative news about companies that Graphwise invested in during 2024?", collection="companies")
    where = json.dumps(result.trace.plan["where"])
    assert '"sentiment": {"$lt": -0.5}' in where
    assert '"date": {"$gte": 20240101}' in where and '"date": {"$lt": 20250101}' in where
    for doc in result.trace.documents:
        assert doc["metadata"]["date"].startswith("2024") and doc["metadata"]["sentiment"] < -0.5


def test_graph_down_is_graph_unavailable_and_the_rest_stays_healthy(
    make: Callable[..., SelfRagEngine], companies: Store, graph: FalkorGraphStore
) -> None:
    engine = make(url=f"redis://127.0.0.1:{free_port()}")
    with pytest.raises(GraphUnavailable):
        engine.run(_dev("c01")["question"], collection="companies")
    ingest_sample(companies, "movies")
    assert engine.run("Which movie is about toys coming alive?", collection="movies").outcome == "answered"



@pytest.mark.parametrize("question", [
    "Which companies does Graphwise' }) MATCH (n) DETACH DELETE n // supply?",
    'Who sits on the board of "}) RETURN 1 UNION MATCH (n) DETACH DELETE n RETURN 1 //?',
    "Latest news about companies in Germany`) DETACH DELETE n; /* {x} */",
])
def test_injection_through_questions_leaves_the_graph_unchanged(
    make: Callable[..., SelfRagEngine], graph: FalkorGraphStore, question: str
) -> None:
    before = graph.summary("companies")
    result = make().run(question, collection="companies")
    assert result.outcome.value in {"answered", "abstained", "ungrounded", "unverified", "budget_exhausted",
                                    "needs_clarification"}
    after = graph.summary("companies")
    assert (dict(after.labels), dict(after.types)) == (dict(before.labels), dict(before.types))
    for res in result.trace.plan.get("graph", {}).get("resolutions", []):
        if res["kind"] == "relation":
            # The template is the compiled one: no text of the question in it, only parameters.
            assert "DELETE" not in res["template"] and "Graphwise" not in res["template"]


def test_a_per_collection_setting_changes_no_node_a_question_runs_through(make: Callable[..., SelfRagEngine]) -> None:
    # ``[collections.companies.search] k = 3`` is a setting of the one collection's search: the
    # question still runs through the same nodes, latest-first and clarification included.
    configured = RunOptions(top_k=4, search_defaults={"companies": ResourceSearch(k=3)})
    plain, tuned = make(checkpointer=InMemorySaver()), make(checkpointer=InMemorySaver(), defaults=configured)
    for n, question in enumerate(["What is the latest positive news about Graphwise?", _dev("c01")["question"],
                                  "Who supplies Mercury?", _dev("c36")["question"]]):
        before = plain.run(question, collection="companies", thread_id=f"a{n}")
        after = tuned.run(question, collection="companies", thread_id=f"b{n}")
        assert after.trace.path == before.trace.path, question
        assert after.outcome == before.outcome, question
    question = "What is the latest positive news about Graphwise?"
    latest, newest = tuned.run(question, collection="companies"), plain.run(question, collection="companies")
    assert "latest" in latest.trace.path and latest.trace.plan["latest"]["k"] == 3
    assert latest.trace.plan["latest"]["documents"] == newest.trace.plan["latest"]["documents"][:3]
    asked = tuned.run("Who supplies Mercury?", collection="companies", thread_id="c")
    assert asked.outcome == "needs_clarification" and asked.clarification is not None
    resumed = tuned.run("the first one", collection="companies", thread_id="c")
    [res] = resumed.trace.plan["graph"]["resolutions"]
    assert res["entity"]["name"] == "Mercury Motors" and resumed.trace.retrievals[0]["resources"][0]["k"] == 3
