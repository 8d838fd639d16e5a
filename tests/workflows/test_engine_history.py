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
