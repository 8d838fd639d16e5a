"""Thread memory in a shared Postgres: two engines (two service instances) serve one thread.

Runs against a real PostgreSQL on 127.0.0.1 (the session's ``postgres_url``); each test takes a
database of its own, so tables and threads start empty.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.base import MIGRATIONS
from psycopg_pool import PoolClosed

from selfrag.settings import Settings
from tests.pg import create_database
from tests.workflows.conftest import happy
from workflows.factory import close_checkpointer, open_checkpointer

pytestmark = pytest.mark.integration

FIRST = "Which animated movie from 1995 is there?"
FOLLOW_UP = "and from 2006?"
CONDENSED = "Which animated movie from 2006 is there?"



@pytest.fixture
def database_url(postgres_url: str) -> str:
    return create_database(postgres_url, f"test_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", checkpoints={"url": database_url, "pool_size": 3})


@pytest.fixture
def open_saver(settings: Settings) -> Iterator[Any]:
    """``open_checkpointer(settings)`` as often as a test likes; everything opened is closed after."""
    opened: list[Any] = []

    def open_() -> Any:
        opened.append(open_checkpointer(settings))
        return opened[-1]

    yield open_
    for saver in opened:
        close_checkpointer(saver)


def test_a_thread_started_on_one_engine_continues_on_another(make_engine: Any, open_saver: Any) -> None:
    a, _, _ = make_engine(happy(), checkpointer=open_saver())
    b, model_b, _ = make_engine(happy(condense=[CONDENSED]), checkpointer=open_saver())
    assert b.history("t1") == []

    a.run(FIRST, collection="movies", thread_id="t1")
    assert [t["question"] for t in b.history("t1")] == [FIRST]  # B reads A's checkpoint

    second = b.run(FOLLOW_UP, collection="movies", thread_id="t1")
    assert second.standalone_question == CONDENSED
    assert second.trace.plan["condense"]["source"] == "llm"
    [condense] = model_b.calls_for("condense")
    assert FIRST in condense.prompt  # B condensed the follow-up with the turn A answered

    assert [t["question"] for t in b.history("t1")] == [FIRST, FOLLOW_UP]
    assert a.history("t1") == b.history("t1")

    b.forget("t1")
    assert a.history("t1") == []
    assert b.history("t1") == []


def test_threads_stay_apart(make_engine: Any, open_saver: Any) -> None:
    a, _, _ = make_engine(happy(), checkpointer=open_saver())
    b, _, _ = make_engine(happy(), checkpointer=open_saver())
    a.run(FIRST, collection="movies", thread_id="t1")
    assert b.history("t2") == []
    b.forget("t2")  # forgetting an unknown thread is not an error, and leaves the others
    assert len(a.history("t1")) == 1


def test_the_saver_is_a_postgres_saver_over_a_bounded_pool_and_closes(open_saver: Any) -> None:
    saver = open_saver()
    assert isinstance(saver, PostgresSaver)
    assert (saver.conn.min_size, saver.conn.max_size) == (1, 3)
    close_checkpointer(saver)
    assert saver.conn.closed
    with pytest.raises(PoolClosed):
        saver.get_tuple({"configurable": {"thread_id": "t1", "checkpoint_ns": ""}})
    close_checkpointer(saver)  # twice is fine


def test_instances_starting_together_set_up_the_tables_once(open_saver: Any, database_url: str) -> None:
    starters = 6
    barrier = threading.Barrier(starters)
    errors: list[BaseException] = []

    def start() -> None:
        barrier.wait()
        try:
            open_saver()
        except BaseException as exc:  # collected: an exception in a thread would otherwise go unseen
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(starters)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(database_url) as conn:
        versions = [v for (v,) in conn.execute("SELECT v FROM checkpoint_migrations ORDER BY v")]
    assert versions == list(range(len(MIGRATIONS)))


def test_typed_records_round_trip_through_postgres(make_engine: Any, open_saver: Any) -> None:
    engine, _, _ = make_engine(happy(), checkpointer=open_saver())
    result = engine.run(FIRST, collection="movies", thread_id="typed")
    other, _, _ = make_engine(happy(), checkpointer=open_saver())
    stored = other._thread_graph.get_state({"configurable": {"thread_id": "typed"}}).values
    assert stored["graded"] == result.trace.documents and stored["verdicts"] == result.trace.verdicts
    assert stored["generations"] == result.trace.generations and stored["timings"] == result.trace.timings


def test_a_question_postgres_cannot_hold_is_refused_as_bad_input(make_engine: Any, open_saver: Any) -> None:
    # Postgres refuses a NUL in text: it was a 503 store_unavailable (an outage, retried forever)
    # that left an empty thread behind.
    from selfrag.errors import InvalidQuestion

    engine, model, _ = make_engine(happy(), checkpointer=open_saver())
    with pytest.raises(InvalidQuestion) as info:
        engine.run("Which movie has \u0000 dinosaurs?", collection="movies", thread_id="nul1")
    assert (info.value.code, info.value.status) == ("question_invalid", 400)
    assert model.calls == [] and engine.thread("nul1") is None
