"""Extras: named functions of the final state that add fields to a result; one that raises is
recorded in the trace and never costs the answer."""

from __future__ import annotations

from typing import Any

import pytest

from selfrag.errors import UsageError
from tests.workflows.conftest import happy, relevant_if, sequence_search
from workflows import FinalState, Outcome, SelfRagEngine


def test_extras_add_fields_computed_from_the_final_state(make_engine: Any) -> None:
    engine, _, _ = make_engine({**happy(), "RelevanceGrade": relevant_if("Toys")}, search_fn=sequence_search(["toys", "zone"]))
    seen: list[FinalState] = []

    def record(state: FinalState) -> str:
        seen.append(state)
        return state.outcome

    result = engine.run("Which movie has toys?", collection="movies", extras={
        "count_docs": lambda s: len(s.documents),
        "retrieved": lambda s: [d["id"] for d in s.retrieved],
        "outcome_seen": record,
    })
    assert result.outcome is Outcome.ANSWERED
    assert result.extras == {"count_docs": 1, "retrieved": ["toys", "zone"], "outcome_seen": "answered"}
    (state,) = seen
    assert state.question == "Which movie has toys?"
    assert state.answer == result.answer
    assert [d["id"] for d in state.documents] == ["toys"]  # the documents the answer was drawn from
    assert state.trace.path == result.trace.path
    assert result.trace.extras == []


def test_an_extra_that_raises_is_in_the_trace_and_the_answer_stands(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy(), search_fn=sequence_search(["toys"]))

    def broken(state: FinalState) -> int:
        raise ValueError("no year in\n   this document")

    result = engine.run("Which movie has toys?", collection="movies", extras={
        "broken": broken,
        "fine": lambda s: s.answer.upper(),
    })
    assert result.outcome is Outcome.ANSWERED
    assert result.extras == {"fine": result.answer.upper()}
    assert result.trace.extras == [{"name": "broken", "error": "ValueError", "message": "no year in this document"}]


def test_an_extra_cannot_change_the_result(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy(), search_fn=sequence_search(["toys"]))

    def vandal(state: FinalState) -> None:
        state.documents[0]["text"] = "changed"
        state.trace.path.clear()

    result = engine.run("Which movie has toys?", collection="movies", extras={"vandal": vandal})
    assert result.trace.path[-1] == "finalize"
    assert result.citations[0].text.startswith("Toys come alive")


def test_engine_extras_are_the_default_and_a_run_adds_its_own(make_engine: Any) -> None:
    engine, _, _ = make_engine(happy(), search_fn=sequence_search(["toys"]))
    with_defaults = SelfRagEngine(engine.components, extras={"n": lambda s: len(s.documents), "tag": lambda s: "engine"})
    result = with_defaults.run("Which movie has toys?", collection="movies", extras={"tag": lambda s: "run"})
    assert result.extras == {"n": 1, "tag": "run"}


@pytest.mark.parametrize("extras", [{"answer": lambda s: 1}, {"context": lambda s: 1}, {"n": 3}])
def test_an_extra_that_would_shadow_a_field_or_is_not_callable_is_refused_before_any_work(
    make_engine: Any, extras: dict[str, Any]
) -> None:
    engine, model, _ = make_engine(happy())
    with pytest.raises(UsageError):
        engine.run("Which movie has toys?", collection="movies", extras=extras)
    assert model.calls == []
