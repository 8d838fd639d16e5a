"""The state's contracts: every key says what a new turn does with it, records keep one shape,
and checkpoints hold them as plain JSON (including checkpoints written before the typed shapes)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from graders import Verdict
from selfrag.cli._progress import describe_update
from selfrag.service.events import EVENT_NAMES, STREAMED_NODES, node_event
from tests.workflows.conftest import happy
from workflows import NODES, NodeEvent, Result, recursion_limit_for
from workflows.nodes import NodeSpec, SelfRagNodes
from workflows.records import GeneratedAnswer, GradedDocument
from workflows.state import Fresh, Input, Kept, SelfRagState, fresh_values, per_turn_reset, turn_policies

Q = "Which movie is about toys coming alive?"



def test_every_state_key_declares_what_a_new_turn_does_with_it() -> None:
    policies = turn_policies()
    assert set(policies) == set(SelfRagState.__annotations__)
    assert all(p is not None for p in policies.values()), [k for k, p in policies.items() if p is None]
    assert isinstance(policies["history"], Kept) and policies["question"] is Input
    assert set(per_turn_reset()) == {k for k, p in policies.items() if isinstance(p, Fresh)}


def test_a_key_added_without_a_per_turn_policy_is_refused() -> None:
    class Grown(SelfRagState, total=False):
        carried_by_mistake: list[str]
        declared: Annotated[list[str], Fresh([])]

    with pytest.raises(TypeError, match="carried_by_mistake"):
        fresh_values(Grown)


def test_per_turn_reset_never_shares_a_mutable_default() -> None:
    first = per_turn_reset()
    first["graded"].append("x")
    first["plan"]["k"] = 1
    assert per_turn_reset()["graded"] == [] and per_turn_reset()["plan"] == {}


def test_records_have_one_shape_with_every_key(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    result = engine.run(Q, collection="movies")
    assert result.trace.documents and result.trace.verdicts
    for doc in result.trace.documents:
        assert set(doc) == set(GradedDocument.__annotations__)
        assert set(doc["grade"]) == set(Verdict.__annotations__) and doc["grade"]["kind"] == "relevance"
        assert doc["relevant"] is doc["grade"]["passed"]
    assert all(set(v) == set(Verdict.__annotations__) for v in result.trace.verdicts)
    assert all(set(g) == set(GeneratedAnswer.__annotations__) for g in result.trace.generations)


def test_the_cli_line_and_the_sse_event_come_from_one_summary(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy())
    events = [e for e in engine.stream(Q, collection="movies") if isinstance(e, NodeEvent)]
    assert [e.node for e in events] == ["condense", "self_query", "retrieve", "grade_documents", "generate", "check", "finalize"]
    by_name = {spec.name: spec for spec in NODES}
    for e in events:
        summary = by_name[e.node].summarize(e.update)  # type: ignore[arg-type]
        assert describe_update(e.node, e.update) == summary.text and summary.text
        sse = node_event(e.node, e.update)
        if by_name[e.node].event is None:
            assert sse is None
        else:
            assert sse is not None and sse[0] == by_name[e.node].event
            assert sse[1] == {**sse[1], **summary.data} and sse[1]["node"] == sse[0]


def test_streaming_names_and_budgets_derive_from_the_node_declarations() -> None:
    assert {s.name: s.event for s in NODES if s.event} == STREAMED_NODES
    assert EVENT_NAMES[-2:] == ["result", "error"] and "grade" in EVENT_NAMES
    # Each rewrite can add retrieve, grade and rewrite; each generation generate and check.
    assert recursion_limit_for(3, 2) - recursion_limit_for(2, 2) == sum(s.repeats == "rewrite" for s in NODES) == 3
    assert recursion_limit_for(2, 3) - recursion_limit_for(2, 2) == sum(s.repeats == "generation" for s in NODES) == 2


def test_a_node_declared_with_a_name_and_a_function_alone_still_summarises_itself() -> None:
    # The smallest declaration a new node needs: the default summary lists what it wrote, as a
    # JSON-ready event body and a short CLI line, and it is a bookkeeping node until given an event.
    spec = NodeSpec("tag", SelfRagNodes.condense)
    summary = spec.summarize({"standalone_question": "x" * 200, "stop_reason": "budget"})
    assert spec.event is None and spec.repeats == "once"
    assert summary.text.startswith("standalone_question ") and summary.text.endswith(" — budget")
    assert len(summary.text) < 80 and summary.data == {"standalone_question": "x" * 200}
    json.dumps(summary.data)


def _saver(path: Path) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


def test_typed_records_round_trip_through_a_sqlite_checkpoint(make_engine: Any, tmp_path: Path) -> None:
    engine, _, _ = make_engine(happy(), checkpointer=_saver(tmp_path / "cp.sqlite"))
    result = engine.run(Q, collection="movies", thread_id="t")
    stored = engine._thread_graph.get_state({"configurable": {"thread_id": "t"}}).values
    assert stored["graded"] == result.trace.documents and stored["verdicts"] == result.trace.verdicts
    assert stored["generations"] == result.trace.generations


def test_a_checkpoint_written_with_the_old_dict_shapes_still_continues(make_engine: Any, tmp_path: Path) -> None:
    path = tmp_path / "cp.sqlite"
    engine, _, _ = make_engine(happy(), checkpointer=_saver(path))
    engine.run(Q, collection="movies", thread_id="t")
    config = {"configurable": {"thread_id": "t"}}
    # What the state held before the typed records: flat relevance entries, partial verdicts.
    old = {
        "graded": [{"id": "toys", "metadata": {}, "score": 0.5, "query": "toys", "relevant": True,
                    "verdict": "relevant", "reason": "r", "failed": False, "error": None, "attempts": 1}],
        "verdicts": [{"kind": "groundedness", "generation": 1, "passed": True, "label": "grounded", "failed": False}],
    }
    engine._thread_graph.update_state(config, old, as_node="finalize")
    again, _, _ = make_engine(happy(), checkpointer=_saver(path))
    second = again.run(Q, collection="movies", thread_id="t")
    assert isinstance(second, Result) and [t["question"] for t in again.history("t")] == [Q, Q]
    assert all("grade" in d for d in second.trace.documents)  # the turn started fresh, in the new shapes


def test_a_checkpoint_whose_plan_and_terms_are_untyped_dicts_still_loads_and_continues(
    make_engine: Any, tmp_path: Path,
) -> None:
    # Before the typed plan record, ``plan``, ``graph_terms``, ``resumed`` and ``citations`` were
    # free dicts, with keys the records no longer name: such a checkpoint must still read and go on.
    path = tmp_path / "cp.sqlite"
    engine, _, _ = make_engine(happy(), checkpointer=_saver(path))
    engine.run(Q, collection="movies", thread_id="t")
    config = {"configurable": {"thread_id": "t"}}
    old = {
        "plan": {"source": "rules", "where": {"genre": "animation"}, "structured_query": {"query": "toys"},
                 "graph": {"terms": [], "latest": False}, "retired_key": 1},
        "graph_terms": [{"kind": "mention", "relation": None, "attribute": "people", "value": "Mercury",
                         "entity": None, "candidates": []}],
        "resumed": {"id": "e1", "name": "Mercury", "label": "Person", "value": "Mercury"},
        "citations": [{"number": 1, "id": "toys", "text": "t", "metadata": {}}],
    }
    engine._thread_graph.update_state(config, {k: old[k] for k in ("plan", "resumed", "citations")}, as_node="finalize")
    # Keys the state no longer declares (one collection is now a list of one resource plan): written
    # into the stored checkpoint as an older release left them.
    saver = engine.checkpointer
    stored_tuple = saver.get_tuple(config)
    checkpoint = {**stored_tuple.checkpoint, "channel_values": {
        **stored_tuple.checkpoint["channel_values"], "graph_terms": old["graph_terms"],
        "query_filter": {"attribute": "genre", "comparator": "eq", "value": "animation"}, "limit": 2,
        "latest": True, "graph_where": {"people": {"$contains": "Mercury"}}}}
    saver.put(stored_tuple.config, checkpoint, stored_tuple.metadata, {})
    assert saver.get_tuple(config).checkpoint["channel_values"]["graph_terms"] == old["graph_terms"]
    stored = engine._thread_graph.get_state(config).values
    assert stored["plan"]["retired_key"] == 1 and stored["resumed"]["name"] == "Mercury"
    assert "graph_terms" not in stored and "query_filter" not in stored
    again, _, _ = make_engine(happy(), checkpointer=_saver(path))
    assert again.thread("t") is not None
    second = again.run(Q, collection="movies", thread_id="t")
    assert second.outcome.value == "answered" and [t["question"] for t in again.history("t")] == [Q, Q]
    assert "retired_key" not in second.trace.plan and second.trace.plan["condense"]["source"]


def test_the_result_and_trace_fields_derive_from_the_state_declaration(make_engine: Any) -> None:
    from workflows import Trace
    from workflows.state import Shown, shown

    hints = get_type_hints(SelfRagState, include_extras=True)
    declared = {m.name: (key, m.in_trace) for key, hint in hints.items() for m in getattr(hint, "__metadata__", ())
                if isinstance(m, Shown)}
    engine_own = {"path", "budgets", "llm", "total_ms", "extras", "judge"}
    assert {n for n, (_, t) in declared.items() if t} == set(Trace.model_fields) - engine_own
    assert {n for n, (_, t) in declared.items() if not t} <= set(Result.model_fields)
    engine, _, _ = make_engine(happy())
    result = engine.run(Q, collection="movies")
    assert result.trace.resources and result.trace.documents and result.citations and result.answer
    state = {**per_turn_reset(), "question": "q", "collection": "c", "answer": "a"}
    assert shown(state, in_trace=False)["answer"] == "a" and shown(state, in_trace=True)["documents"] == []
