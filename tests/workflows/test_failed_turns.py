"""A failed turn leaves its thread exactly as it was: the thread is its last completed turn.

A turn that fails mid-run (a dependency dies: an error, never an answer) used to leave the
checkpoints of the steps it ran as the thread's newest, and they were read as the thread: its
``condense`` had cleared a pending clarification (the retried reply was no longer read as the
answer to it), its input had rewritten the thread's collections (a key limited to the first
collection then lost its own thread), and a first turn that failed left an empty thread behind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from selfrag.errors import ProviderError
from selfrag.kg import GraphContexts
from selfrag.kg.fake import FakeGraphStore
from selfrag.samples import ingest_sample
from selfrag.store import Store
from selfrag.testing import FakeCollection, FakeStore, HashEmbeddings, ScriptedChatModel
from tests.workflows.conftest import DOCS, FAST, SCHEMA, happy
from workflows import Components, Outcome, RunOptions, SelfRagEngine

FIRST = "Which movie is about toys coming alive?"


class Switch:
    """A model server that can be taken down: while ``down``, every call of the scripted tasks is refused."""

    def __init__(self) -> None:
        self.down = False

    def wrap(self, reply: Any) -> Any:
        def call(messages: list[Any]) -> Any:
            if self.down:
                raise ConnectionError("connection refused by the model server at 10.0.0.7:8080")
            return reply(messages) if callable(reply) else reply

        return call


def _saver(tmp_path: Path) -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(str(tmp_path / "cp.sqlite"), check_same_thread=False))


def _engine(switch: Switch, saver: Any) -> SelfRagEngine:
    rules = {task: switch.wrap(reply) for task, reply in happy().items()}
    movies = FakeCollection("movies", SCHEMA, list(DOCS.values()))
    books = FakeCollection("books", SCHEMA, list(DOCS.values()))
    components = Components.from_model(ScriptedChatModel.from_rules(rules), FakeStore(movies, books), retry=FAST,
                                       self_query_mode="rules")
    return SelfRagEngine(components, defaults=RunOptions(), checkpointer=saver)


def test_a_failed_turn_on_another_collection_leaves_the_threads_collections(tmp_path: Path) -> None:
    switch = Switch()
    engine = _engine(switch, _saver(tmp_path))
    engine.run(FIRST, collection="movies", thread_id="t")
    before = engine.thread("t")
    switch.down = True
    with pytest.raises(ProviderError):
        engine.run("And which book has dinosaurs?", collection="books", thread_id="t")
    after = engine.thread("t")
    assert after == before
    assert after is not None and after.collections == ["movies"] and after.collection == "movies"
    switch.down = False
    # The next turn starts from the last completed one: the failed turn's collection is not carried.
    again = engine.run("Which movie has dinosaurs?", collection="movies", thread_id="t")
    assert again.collections == ["movies"]
    info = engine.thread("t")
    assert info is not None and info.collections == ["movies"]
    assert [t["question"] for t in info.turns] == [FIRST, "Which movie has dinosaurs?"]


def test_a_first_turn_that_fails_leaves_no_thread(tmp_path: Path) -> None:
    switch = Switch()
    switch.down = True
    engine = _engine(switch, _saver(tmp_path))
    with pytest.raises(ProviderError):
        engine.run(FIRST, collection="movies", thread_id="new")
    assert engine.thread("new") is None and engine.history("new") == []
    switch.down = False
    answered = engine.run(FIRST, collection="movies", thread_id="new")
    assert answered.outcome is Outcome.ANSWERED
    info = engine.thread("new")
    assert info is not None and [t["question"] for t in info.turns] == [FIRST]


def test_turns_after_several_failures_build_on_the_last_completed_one(tmp_path: Path) -> None:
    switch = Switch()
    engine = _engine(switch, _saver(tmp_path))
    engine.run(FIRST, collection="movies", thread_id="t")
    switch.down = True
    for n in range(3):
        with pytest.raises(ProviderError):
            engine.run(f"And which book has dinosaurs, take {n}?", collection="books", thread_id="t")
    switch.down = False
    engine.run("Which movie has dinosaurs?", collection="movies", thread_id="t")
    engine.run("What did I just ask you?", collection="movies", thread_id="t")
    info = engine.thread("t")
    assert info is not None and info.collections == ["movies"]
    assert [t["question"] for t in info.turns] == [FIRST, "Which movie has dinosaurs?", "What did I just ask you?"]
    assert info.turns[-1]["answer"] == "You asked: “Which movie has dinosaurs?”."


def test_an_idempotent_retry_of_a_failed_turn_runs_it(tmp_path: Path) -> None:
    switch = Switch()
    engine = _engine(switch, _saver(tmp_path))
    keyed = RunOptions(request_key="k-1")
    switch.down = True
    with pytest.raises(ProviderError):
        engine.run(FIRST, collection="movies", thread_id="t", options=keyed)
    switch.down = False
    first = engine.run(FIRST, collection="movies", thread_id="t", options=keyed)
    again = engine.run(FIRST, collection="movies", thread_id="t", options=keyed)
    assert not first.replayed and again.replayed and again.answer == first.answer
    assert len(engine.history("t")) == 1


def test_a_turn_whose_every_model_call_failed_is_not_stored(tmp_path: Path) -> None:
    # Not a transport failure, so no stage stops the run: each falls back (rules, a fail-closed
    # grade) and the run reaches finalize. A model that never answered is down, not wrong: the
    # run is a 503, and its turn (an abstention built on the fallbacks) used to be stored all the same.
    broken = {"down": False}

    def reply(answer: Any) -> Any:
        def call(messages: list[Any]) -> Any:
            if broken["down"]:
                raise ValueError("the model's reply could not be used")
            return answer(messages) if callable(answer) else answer

        return call

    rules = {task: reply(answer) for task, answer in happy().items()}
    components = Components.from_model(ScriptedChatModel.from_rules(rules),
                                       FakeStore(FakeCollection("movies", SCHEMA, list(DOCS.values()))),
                                       retry=FAST, self_query_mode="rules")
    engine = SelfRagEngine(components, defaults=RunOptions(), checkpointer=_saver(tmp_path))
    engine.run(FIRST, collection="movies", thread_id="t")
    before = engine.thread("t")
    broken["down"] = True
    for thread_id in ("t", "new"):
        with pytest.raises(ProviderError, match="failed on all"):
            engine.run("Which movie has dinosaurs?", collection="movies", thread_id=thread_id)
    assert engine.thread("t") == before and engine.thread("new") is None


# -- a pending clarification (graph resolution, through the fake graph store) ----------------------
@pytest.fixture
def companies(tmp_path: Path) -> Iterator[tuple[Store, FakeGraphStore]]:
    import chromadb

    from selfrag.store import chroma_settings

    graph = FakeGraphStore()
    store = Store(chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()),
                  HashEmbeddings(), batch_size=64)
    ingest_sample(store, "companies", graph=graph)
    yield store, graph
    store.close()


def test_a_pending_clarification_survives_a_failed_reply(companies: tuple[Store, FakeGraphStore], tmp_path: Path) -> None:
    store, graph = companies
    switch = Switch()
    # A condenser that proposes nothing better: a reply not read as the choice is carried over.
    rules = {task: switch.wrap(reply) for task, reply in happy(condense="the first one").items()}
    components = Components.from_model(ScriptedChatModel.from_rules(rules), store, retry=FAST,
                                       self_query_mode="rules", parallel_checks=False)
    components.graphs = GraphContexts(lambda: graph)
    engine = SelfRagEngine(components, defaults=RunOptions(top_k=4), checkpointer=_saver(tmp_path),
                           today=lambda: date(2025, 12, 31))
    asked = engine.run("Who supplies Mercury?", collection="companies", thread_id="k")
    assert asked.outcome is Outcome.NEEDS_CLARIFICATION
    switch.down = True  # the reply's turn resumes the question, then grading cannot reach the model
    with pytest.raises(ProviderError):
        engine.run("the first one", collection="companies", thread_id="k")
    switch.down = False
    resumed = engine.run("the first one", collection="companies", thread_id="k")
    assert resumed.standalone_question == "Who supplies Mercury?"
    assert resumed.trace.plan["graph"]["resolutions"][0]["entity"]["name"] == "Mercury Motors"
    assert resumed.outcome is not Outcome.NEEDS_CLARIFICATION
