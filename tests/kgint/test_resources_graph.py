"""Graph conditions when a question targets several collections: the companies collection (linked to
the companies graph in a real FalkorDB) beside movies (no graph), both in a real Chroma. The graph
resource gets its resolved entity set as a condition, shown in its plan; the other is searched as
usual; an ambiguous name or an empty relation makes only the graph resource fail, never search it
without the condition; a graph server that is down ends the run."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from selfrag.errors import GraphUnavailable
from selfrag.kg import GraphContexts, open_graph_store
from selfrag.retry import RetryPolicy
from selfrag.samples import ingest_sample
from selfrag.store import Store
from selfrag.testing import ScriptedChatModel, verdict
from tests.servers import free_port
from workflows import Components, Outcome, Result, RunOptions, SelfRagEngine

TODAY = date(2025, 12, 31)
FAST = RetryPolicy(attempts=1, initial_wait_s=0.0, max_wait_s=0.0)
DEVSET = Path(__file__).resolve().parents[2] / "eval" / "sets" / "companies" / "questions.jsonl"
BOTH = ["companies", "movies"]


def _dev(qid: str) -> dict[str, Any]:
    return next(r for r in map(json.loads, DEVSET.read_text().splitlines()) if r["id"] == qid)


@pytest.fixture
def engine(companies: Store, falkordb_url: str, tmp_path: Path) -> Callable[..., SelfRagEngine]:
    ingest_sample(companies, "movies")  # a second collection, linked to no graph

    def build(*, url: str = falkordb_url, **kwargs: Any) -> SelfRagEngine:
        model = ScriptedChatModel.from_rules({
            "RelevanceGrade": verdict("relevant"), "generate": "An answer [1].",
            "GroundednessGrade": verdict("grounded"), "UsefulnessGrade": verdict("useful"),
        })
        components = Components.from_model(model, companies, retry=FAST, self_query_mode="rules", parallel_checks=False)
        components.graphs = GraphContexts(lambda: open_graph_store(tmp_path, url))
        return SelfRagEngine(components, defaults=RunOptions(top_k=4), today=lambda: TODAY, **kwargs)

    return build


def _by_resource(result: Result) -> tuple[dict[str, Any], dict[str, Any]]:
    plans = {p["resource"]: p for p in result.trace.resources}
    searched = {r["resource"]: r for r in result.trace.retrievals[0]["resources"]}
    return plans, searched


def test_the_graph_resource_is_filtered_by_its_resolution_and_the_other_searched_as_usual(
    engine: Callable[..., SelfRagEngine],
) -> None:
    q = _dev("c01")
    result = engine().run(q["question"], resources=BOTH)
    plans, searched = _by_resource(result)
    # The trace shows the resolution: the relation, the entity, the resolved set, the condition.
    [res] = plans["companies"]["resolutions"]
    assert res["kind"] == "relation" and res["relation"] == "board_member" and res["entity"]["name"] == "Rod Halverson"
    assert sorted(e["name"] for e in res["entities"]) == q["entities"]
    assert '{"organizations": {"$contains": "Graphwise"}}' in json.dumps(plans["companies"]["fixed"])
    assert '"organizations"' in json.dumps(searched["companies"]["where"])
    assert plans["companies"]["error"] is None and searched["companies"]["hits"] > 0
    # movies has no graph: no condition, searched normally.
    assert plans["movies"]["error"] is None and plans["movies"]["fixed"] is None and plans["movies"]["resolutions"] == []
    assert searched["movies"]["error"] is None and searched["movies"]["hits"] > 0
    companies_docs = [d for d in result.trace.documents if d["resource"] == "companies"]
    assert companies_docs
    assert all(set(d["metadata"]["organizations"]) & set(q["entities"]) for d in companies_docs)  # type: ignore[arg-type]
    assert {d["resource"] for d in result.trace.documents} == set(BOTH)


def test_an_empty_relation_fails_only_that_resource_and_it_is_never_searched(
    engine: Callable[..., SelfRagEngine],
) -> None:
    result = engine().run(_dev("c36")["question"], resources=BOTH)
    plans, searched = _by_resource(result)
    why = "Ingrid Solberg has no Organization through 'board_member'"  # the sentence one collection answers with
    assert plans["companies"]["error_code"] == "graph_condition" and why in (plans["companies"]["error"] or "")
    # Never searched without the condition: no where, no hits, no document from it.
    assert searched["companies"]["error_code"] == "graph_condition"
    assert searched["companies"]["hits"] == 0 and searched["companies"]["where"] is None
    assert all(d["resource"] == "movies" for d in result.trace.documents)
    assert plans["movies"]["error"] is None and searched["movies"]["error"] is None and searched["movies"]["hits"] > 0
    assert result.outcome is not Outcome.NEEDS_CLARIFICATION


def test_an_ambiguous_name_in_one_resource_asks_which_and_the_reply_resumes_across_all(
    engine: Callable[..., SelfRagEngine],
) -> None:
    # Issue 28: one path for one resource or several. An ambiguous name is asked back, whatever
    # the other resources hold (an answer for one of the meanings would be a guess).
    eng = engine(checkpointer=InMemorySaver())
    asked = eng.run("Who supplies Mercury?", resources=BOTH, thread_id="t")
    assert asked.outcome is Outcome.NEEDS_CLARIFICATION and asked.clarification is not None
    assert [c["name"] for c in asked.clarification["candidates"]] == ["Mercury Motors", "Mercury Records"]
    assert "retrieve" not in asked.trace.path and asked.trace.retrievals == []
    resumed = eng.run("the first one", resources=BOTH, thread_id="t")
    plans, searched = _by_resource(resumed)
    [res] = plans["companies"]["resolutions"]
    assert res["entity"]["name"] == "Mercury Motors" and plans["companies"]["error"] is None
    assert searched["companies"]["hits"] > 0 and searched["movies"]["error"] is None


def test_latest_first_works_across_several_resources(engine: Callable[..., SelfRagEngine]) -> None:
    result = engine().run("What is the latest positive news about Graphwise?", resources=BOTH)
    assert "latest" in result.trace.path
    plans, searched = _by_resource(result)
    assert plans["companies"]["latest"] and not plans["movies"]["latest"]
    latest = result.trace.plan["latest"]
    assert latest["attribute"] == "date" and latest["documents"]
    # The companies documents are its newest matches, newest first; movies was searched as usual.
    dates = [d["metadata"]["date"] for d in result.trace.documents if d["resource"] == "companies"]
    assert dates and searched["movies"]["error"] is None


def test_a_graph_server_that_is_down_ends_the_run(engine: Callable[..., SelfRagEngine]) -> None:
    # An answer from the other resource alone would pass for one from both (issue 25).
    with pytest.raises(GraphUnavailable) as err:
        engine(url=f"redis://127.0.0.1:{free_port()}").run(_dev("c01")["question"], resources=BOTH)
    assert err.value.dependency == "graph" and "127.0.0.1" not in err.value.message
