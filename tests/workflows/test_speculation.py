"""Speculation: the question is searched and graded while the self-query model call runs; the work
is kept only when the plan keeps the question, and never changes the result."""

from __future__ import annotations

import json
import threading
from typing import Any

from selfrag.query import Plan, StructuredQuery
from selfrag.query.model import Comparison
from selfrag.settings import Settings
from selfrag.store.types import Hit
from selfrag.testing import FakeCollection, FakeStore, ScriptedChatModel
from tests.workflows.conftest import DOCS, FAST, SCHEMA, happy, hits
from workflows import Components, RunOptions, SelfRagEngine
from workflows.factory import build_components, speculate
from workflows.speculation import departure, plan_keeps_question

TOPICAL = "What do toys do when nobody is watching?"
UNFILTERED = json.dumps({"query": "toys nobody watching", "filter": None, "limit": None})
ANIMATED = json.dumps({"query": "toys", "filter": {"attribute": "genre", "comparator": "eq", "value": "animated"},
                       "limit": None})


def build(rules: dict[str, Any], *, speculate: bool, search_fn: Any = None, mode: str = "auto",
          options: RunOptions | None = None) -> tuple[SelfRagEngine, ScriptedChatModel, FakeCollection]:
    model = ScriptedChatModel.from_rules(rules)
    coll = FakeCollection("movies", SCHEMA, list(DOCS.values()), search_fn=search_fn)
    components = Components.from_model(model, FakeStore(coll), retry=FAST, self_query_mode=mode, speculate=speculate)
    return SelfRagEngine(components, defaults=options or RunOptions(grade_concurrency=4)), model, coll


def script(structured: Any) -> dict[str, Any]:
    return happy(StructuredQuery=structured)


def test_grading_runs_while_the_self_query_call_runs() -> None:
    # The self-query call blocks until a relevance verdict exists: only speculation can give it one.
    graded = threading.Event()
    seen = {}

    def relevance(messages: list[Any]) -> str:
        graded.set()
        return '{"verdict": "relevant", "reason": "on topic"}'

    def self_query(messages: list[Any]) -> str:
        seen["overlapped"] = graded.wait(timeout=5)
        return UNFILTERED

    engine, model, coll = build({**script(self_query), "RelevanceGrade": relevance}, speculate=True,
                                search_fn=lambda q, w, k: hits("toys", "dream"))
    result = engine.run(TOPICAL, collection="movies")
    assert seen["overlapped"] is True
    assert result.outcome.value == "answered"
    record = result.trace.plan["speculation"]
    assert record["kept"] is True and record["documents"] == 2 and record["graded"] == 2
    assert record["discarded_calls"] == 0 and record["ms_saved"] > 0
    # The kept work was the first search and its verdicts: nothing searched or graded twice.
    assert [s[0] for s in coll.searches] == [TOPICAL]
    assert len(model.calls_for("RelevanceGrade")) == 2


def _outcome(result: Any) -> dict[str, Any]:
    plan = {k: v for k, v in result.trace.plan.items() if k != "speculation"}
    graded = [(g["id"], g["relevant"], g["grade"]["label"], g["query"]) for g in result.trace.documents]
    return {"answer": result.answer, "outcome": result.outcome, "plan": plan, "graded": graded,
            "citations": [c.id for c in result.citations]}


def test_the_result_is_the_same_with_and_without_speculation() -> None:
    # Relevance decided by the document, so verdicts are comparable run to run.
    def relevance(messages: list[Any]) -> str:
        relevant = "Toys" in str(messages[-1].content).split("<document>", 1)[-1]
        return json.dumps({"verdict": "relevant" if relevant else "irrelevant", "reason": "scripted"})

    results = []
    for on in (False, True):
        engine, _, coll = build({**script(UNFILTERED), "RelevanceGrade": relevance}, speculate=on)
        results.append((engine.run(TOPICAL, collection="movies"), coll.searches))
    (off, off_searches), (on_, on_searches) = results
    assert _outcome(off) == _outcome(on_)
    assert off_searches == on_searches == [(TOPICAL, None, 4)]
    assert "speculation" not in off.trace.plan and on_.trace.plan["speculation"]["kept"] is True
    # The plan kept the question, so the question itself was searched, not the model's rewording.
    assert off.trace.plan["kept_question"] is True


def test_a_question_the_rules_filter_is_not_speculated() -> None:
    engine, model, coll = build(script(ANIMATED), speculate=True)
    result = engine.run("Which animated movie came out after 2000?", collection="movies")
    assert "speculation" not in result.trace.plan
    assert model.calls[0].task == "StructuredQuery"  # nothing ran before the plan
    assert all(s[1] is not None for s in coll.searches)


def test_a_filter_the_model_adds_drops_the_speculative_work() -> None:
    # The rules see no filter in the question, so it is speculated; the model's plan filters
    # (mode "llm": the model's plan is taken as it is), so the work is thrown away.
    outcomes = []
    for on in (False, True):
        engine, model, coll = build(script(ANIMATED), speculate=on, mode="llm")
        result = engine.run(TOPICAL, collection="movies")
        outcomes.append(_outcome(result))
        if on:
            record = result.trace.plan["speculation"]
            assert record["kept"] is False and "filters" in record["reason"]
            assert record["ms_saved"] == 0
            # Every retrieved document was graded after the plan, against the filtered search.
            assert coll.searches[0] == (TOPICAL, None, 4)  # the speculative search
            assert coll.searches[-1][1] == {"genre": {"$eq": "animated"}}
            assert result.trace.plan["kept_question"] is False
    assert outcomes[0] == outcomes[1]


def test_dropped_work_is_counted_as_discarded_calls() -> None:
    both_graded = threading.Event()
    lock, count = threading.Lock(), {"n": 0}

    def relevance(messages: list[Any]) -> str:
        with lock:
            count["n"] += 1
            if count["n"] == 2:
                both_graded.set()
        return '{"verdict": "relevant", "reason": "on topic"}'

    def self_query(messages: list[Any]) -> str:
        assert both_graded.wait(timeout=5)  # the speculative work finished before the plan
        return ANIMATED

    engine, model, _ = build({**script(self_query), "RelevanceGrade": relevance}, speculate=True, mode="llm",
                             search_fn=lambda q, w, k: hits("toys", "dream"))
    result = engine.run(TOPICAL, collection="movies")
    record = result.trace.plan["speculation"]
    # Both calls started before the drop (a verdict may still be parsing: ``graded`` counts finished ones).
    assert (record["kept"], record["discarded_calls"]) == (False, 2) and record["graded"] <= 2
    # The filtered search was graded anew: the discarded verdicts were not reused.
    assert len(model.calls_for("RelevanceGrade")) == 4
    assert result.trace.llm.calls == len(model.calls)  # speculative calls are counted in the trace


def test_a_failing_speculative_search_does_not_fail_the_run() -> None:
    calls = {"n": 0}

    def search(q: str, w: Any, k: int) -> list[Hit]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("chroma went away for a moment")
        return hits("toys")

    engine, _, coll = build(script(UNFILTERED), speculate=True, search_fn=search)
    result = engine.run(TOPICAL, collection="movies")
    assert result.outcome.value == "answered"
    record = result.trace.plan["speculation"]
    assert record["kept"] is False and "chroma went away" in record["reason"]
    assert len(coll.searches) == 2  # retrieve searched again, as without speculation


def test_a_plan_without_a_model_call_is_not_speculated() -> None:
    engine, model, _ = build(script(UNFILTERED), speculate=True, mode="rules")
    result = engine.run(TOPICAL, collection="movies")
    assert "speculation" not in result.trace.plan  # no model call to hide the work behind


def test_speculation_is_on_for_api_providers_and_off_for_the_local_model() -> None:
    api = Settings(llm={"provider": "openai", "api_key": "x"})  # type: ignore[arg-type]
    assert speculate(api) is True
    assert speculate(Settings()) is False
    assert speculate(Settings(workflow={"speculate": True})) is True  # type: ignore[arg-type]
    assert speculate(Settings(llm={"provider": "openai", "api_key": "x"}, workflow={"speculate": False})) is False  # type: ignore[arg-type]
    coll = FakeCollection("movies", SCHEMA, list(DOCS.values()))
    model = ScriptedChatModel.from_rules(happy())
    assert build_components(Settings(), store=FakeStore(coll), model=model).speculate is False
    assert build_components(api, store=FakeStore(coll), model=model).speculate is True


def _plan(query: str, *, filter: Any = None, limit: int | None = None, latest: bool = False) -> Plan:
    return Plan(query=StructuredQuery(query=query, filter=filter, limit=limit), where=None, latest=latest)


def test_which_plans_keep_the_question() -> None:
    question = "What do the quarterly reports say about supply chain risk?"
    assert plan_keeps_question(_plan("supply chain risk in quarterly reports"), question, 4)
    assert plan_keeps_question(_plan("Supply-chain risks"), question, 4)  # same words, other forms
    assert plan_keeps_question(_plan("supply chain risk", limit=4), question, 4)  # the limit it has anyway
    assert not plan_keeps_question(_plan("supply chain risk", limit=3), question, 4)
    assert not plan_keeps_question(_plan("supply chain risk", limit=3), question, 8)
    year = Comparison(attribute="year", comparator="eq", value=2024)
    assert "filters" in (departure(_plan("supply chain risk", filter=year), question, 4) or "")
    assert not plan_keeps_question(_plan("supply chain risk", latest=True), question, 4)
    assert "logistic" in (departure(_plan("supply chain logistics risk"), question, 4) or "")


def test_the_speculative_search_carries_the_mandatory_filter_and_is_reused() -> None:
    mandatory = {"year": {"$gt": 1990}}
    engine, model, coll = build(script(UNFILTERED), speculate=True,
                                options=RunOptions(grade_concurrency=4, mandatory_where=mandatory))
    result = engine.run(TOPICAL, collection="movies")
    assert result.trace.plan["speculation"]["kept"] is True
    assert coll.searches == [(TOPICAL, mandatory, 4)]  # one search: the speculative one, reused
    assert {d["id"] for d in result.trace.documents} <= {"toys", "dino", "dream"}  # 1979's zone excluded


def test_the_forecast_reads_filters_limits_and_dates_with_the_rules_only() -> None:
    from datetime import date

    from selfrag.query import SelfQueryPlanner

    planner = SelfQueryPlanner(None, mode="rules")
    catalogue = {"genre": ["animated", "drama", "science fiction"]}
    today = date(2025, 6, 1)
    assert planner.forecast(TOPICAL, SCHEMA, catalogue, today=today) is None
    assert "filter" in (planner.forecast("Which animated movies are there?", SCHEMA, catalogue, today=today) or "")
    assert "limit" in (planner.forecast("Give me 3 movies about toys", SCHEMA, catalogue, today=today) or "")
    assert not planner.asks_model  # and so a rules-only planner is never speculated beside


def test_the_progress_line_says_whether_the_speculative_search_was_kept() -> None:
    from workflows import summaries

    engine, _, _ = build(script(UNFILTERED), speculate=True)
    result = engine.run(TOPICAL, collection="movies")
    update: Any = {"plan": result.trace.plan, "query": TOPICAL, "resource_plans": result.trace.resources}
    line = summaries.self_query(update)
    assert "speculative search kept" in line.text and line.data["speculation"]["kept"] is True
