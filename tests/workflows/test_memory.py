"""Questions about the conversation itself: answered from the thread's memory, without retrieval."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from tests.workflows.conftest import answer, grade
from workflows import Outcome
from workflows.memory import recall

TURNS = [
    {"question": "Which movie is about toys?", "standalone_question": "Which movie is about toys?", "answer": "Toy Story [1].", "outcome": "answered"},
    {"question": "and from 2006?", "standalone_question": "Which movie from 2006?", "answer": "Paprika [1].", "outcome": "answered"},
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did I just ask you?", "You asked: “and from 2006?”."),
        ("what was my previous question", "You asked: “and from 2006?”."),
        ("What was my first question?", "You asked: “Which movie is about toys?”."),
        ("What did you just say?", "I answered: “Paprika [1].”"),
        ("What have we talked about?", "So far in this conversation you asked: “Which movie is about toys?”; “and from 2006?”."),
    ],
)
def test_questions_about_the_conversation_are_answered_from_its_turns(question: str, expected: str) -> None:
    assert recall(question, TURNS) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("question", ["What did the director ask for?", "Which movie is about toys?", "What did I learn about dinosaurs?"])
def test_other_questions_are_left_to_retrieval(question: str) -> None:
    assert recall(question, TURNS) is None  # type: ignore[arg-type]


def test_a_first_turn_says_there_is_nothing_to_recall() -> None:
    assert recall("What did I just ask you?", []) == "This conversation has no earlier question yet: this is its first turn."


def test_the_engine_answers_from_memory_without_retrieval_or_model(make_engine: Any) -> None:
    engine, model, coll = make_engine({
        "RelevanceGrade": grade("relevant"), "generate": answer("Toys come alive [1]."),
        "GroundednessGrade": grade("grounded"), "UsefulnessGrade": grade("useful"),
    }, checkpointer=InMemorySaver())
    engine.run("Which movie is about toys coming alive?", collection="movies", thread_id="t")
    calls, searches = len(model.calls), len(coll.searches)
    result = engine.run("What did I just ask you?", collection="movies", thread_id="t")
    assert result.outcome is Outcome.ANSWERED
    assert result.answer == "You asked: “Which movie is about toys coming alive?”."
    assert result.trace.path == ["condense", "finalize"]
    assert (len(model.calls), len(coll.searches)) == (calls, searches)  # no model call, no search
    assert [t["question"] for t in engine.history("t")][-1] == "What did I just ask you?"  # the turn is kept


def test_an_answer_recalled_keeps_the_flag_it_was_given() -> None:
    # "What was your last answer?" quoted an ungrounded answer under the outcome `answered`: the
    # quote is true, but it read as a checked answer.
    turns = [{"question": "How long does the Tern T2 last?", "standalone_question": "How long does the Tern T2 last?",
              "answer": "16 hours [1].", "outcome": "ungrounded"}]
    assert recall("What was your last answer?", turns) == "I answered (ungrounded, not checked): “16 hours [1].”"  # type: ignore[arg-type]
