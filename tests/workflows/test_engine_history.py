"""A run without a thread may be given its conversation (a stateless client sends it each time):
follow-ups see it, nothing is stored, and it cannot be mixed with a stored thread."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from selfrag.errors import InvalidQuestion
from tests.workflows.conftest import happy, sequence_search
from workflows import Turn

HISTORY = [Turn(question="Which movie has toys?", standalone_question="Which movie has toys?",
                answer="Toys come alive [1].", outcome="answered")]


def test_a_given_history_is_the_conversation(make_engine: Any) -> None:
    engine, model, _ = make_engine(happy(condense=["Which animated movie has toys, from 1995?"]),
                                   search_fn=sequence_search(["toys"]))
    memory = engine.run("What did I just ask you?", collection="movies", history=HISTORY)
    assert memory.answer == "You asked: “Which movie has toys?”."
    follow = engine.run("and from 1995?", collection="movies", history=HISTORY)
    assert follow.standalone_question == "Which animated movie has toys, from 1995?"
    assert "Which movie has toys?" in model.calls_for("condense")[0].prompt


def test_history_and_a_thread_are_not_mixed(make_engine: Any, tmp_path: Any) -> None:
    saver = SqliteSaver(sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False))
    engine, model, _ = make_engine(happy(), checkpointer=saver)
    with pytest.raises(InvalidQuestion):
        engine.run("toys?", collection="movies", thread_id="t1", history=HISTORY)
    assert model.calls == []
    engine.run("toys?", collection="movies", history=HISTORY, options=None)
    assert engine.history("t1") == []  # a given history is never stored


def test_a_retried_turn_with_its_request_key_is_returned_not_run_again(make_engine: Any, tmp_path: Any) -> None:
    """Issue 25 item 4: a client whose response was lost retries with the same key; the thread gets
    one turn, and the retry the stored answer, citations included, without running anything."""
    from workflows import Outcome, RunOptions

    saver = SqliteSaver(sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False))
    engine, model, _ = make_engine(happy(), checkpointer=saver, search_fn=sequence_search(["toys"]))
    first = engine.run("Which movie has toys?", collection="movies", thread_id="t1", options=RunOptions(request_key="k-1"))
    calls = len(model.calls)
    again = engine.run("Which movie has toys?", collection="movies", thread_id="t1", options=RunOptions(request_key="k-1"))
    assert again.replayed and not first.replayed
    assert (again.answer, again.outcome, again.citations) == (first.answer, first.outcome, first.citations)
    assert len(model.calls) == calls  # nothing ran
    assert [t["question"] for t in engine.history("t1")] == ["Which movie has toys?"]
    other = engine.run("Which movie has toys?", collection="movies", thread_id="t1", options=RunOptions(request_key="k-2"))
    assert not other.replayed and other.outcome is Outcome.ANSWERED and len(engine.history("t1")) == 2
