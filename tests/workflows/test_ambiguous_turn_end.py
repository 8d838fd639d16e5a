"""A turn's answer must say whether it was stored: a result when the thread holds the turn, a
``store_unavailable`` error only when it does not (``SelfRagEngine.stream``).

LangGraph writes a thread's checkpoints in background threads and reports a failed write only when
the run ends. So a write whose connection died (Postgres restarted under the turn) used to surface
after the run had gone on, on fresh connections, to store its whole turn: the client got a 503 for
a stored turn (the operator probe's F3). These tests kill the connection of one checkpoint write in
a real Postgres (``pg_terminate_backend``), at the point each case needs.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from selfrag.errors import StoreError
from selfrag.locking import AdvisoryLocks, KeyedLocks
from selfrag.settings import Settings
from tests.pg import create_database
from tests.workflows.conftest import happy
from workflows import Result
from workflows.factory import close_checkpointer, open_checkpointer

pytestmark = pytest.mark.integration

FIRST, SECOND = "Which animated movie from 1995 is there?", "Which movie has toys?"


@pytest.fixture
def url(postgres_url: str) -> str:
    return create_database(postgres_url, f"test_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def saver(url: str, tmp_path: Path) -> Iterator[Any]:
    saver = open_checkpointer(Settings(home=tmp_path / "home", checkpoints={"url": url, "pool_size": 3}))
    yield saver
    close_checkpointer(saver)


def _die_on_a_pool_connection(saver: Any) -> None:
    """A checkpoint connection's backend ends under its statement, as when Postgres is killed (raises)."""
    with saver.conn.connection() as conn:
        conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")


def _is_turn_end(checkpoint: Any, turns: int) -> bool:
    """The checkpoint that stores the ``turns``-th turn (the first of the run with that history)."""
    return len(checkpoint["channel_values"].get("history") or []) == turns


def _wrap_put(saver: Any, monkeypatch: pytest.MonkeyPatch, around: Callable[..., Any]) -> None:
    real = saver.put
    monkeypatch.setattr(saver, "put", lambda config, checkpoint, metadata, versions:
                        around(real, config, checkpoint, metadata, versions))


def _questions(engine: Any) -> list[str]:
    return [t["question"] for t in engine.history("t")]


def test_a_background_write_that_failed_before_the_turn_was_stored_does_not_make_it_a_503(
    make_engine: Any, saver: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # F3's mechanism: one of the second turn's first writes (its pending writes, written beside the
    # run) loses its connection; the run goes on, its later checkpoints and its last, the turn,
    # are stored on fresh connections; LangGraph raised the old failure only at the run's end.
    engine, _, _ = make_engine(happy(), checkpointer=saver)
    engine.run(FIRST, collection="movies", thread_id="t")
    real, killed = saver.put_writes, []

    def put_writes(config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if not killed:
            killed.append(task_id)
            _die_on_a_pool_connection(saver)
        real(config, writes, task_id, task_path)

    monkeypatch.setattr(saver, "put_writes", put_writes)
    result = engine.run(SECOND, collection="movies", thread_id="t")
    assert killed, "no pending write was killed: the test did not exercise anything"
    assert isinstance(result, Result) and result.answer == "An answer [1]."
    assert _questions(engine) == [FIRST, SECOND]


def test_a_turn_whose_last_commit_landed_before_its_connection_died_is_answered(
    make_engine: Any, saver: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The ambiguous commit: the turn's last checkpoint is committed, then the connection dies
    # before the client library hears so. The thread holds the turn: it is this run's answer.
    engine, _, _ = make_engine(happy(), checkpointer=saver)
    engine.run(FIRST, collection="movies", thread_id="t")

    def put(real: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        stored = real(config, checkpoint, metadata, versions)
        if _is_turn_end(checkpoint, 2):
            _die_on_a_pool_connection(saver)
        return stored

    _wrap_put(saver, monkeypatch, put)
    result = engine.run(SECOND, collection="movies", thread_id="t")
    assert result.answer == "An answer [1]." and result.thread_id == "t"
    assert _questions(engine) == [FIRST, SECOND]


def test_a_turn_whose_last_commit_failed_is_still_a_store_error(
    make_engine: Any, saver: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The other half of the promise: the connection died before the turn's last checkpoint was
    # written, so the thread does not hold the turn, and the run says so (503, safe to send again).
    engine, _, _ = make_engine(happy(), checkpointer=saver)
    engine.run(FIRST, collection="movies", thread_id="t")

    def put(real: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if _is_turn_end(checkpoint, 2):
            _die_on_a_pool_connection(saver)
        return real(config, checkpoint, metadata, versions)

    _wrap_put(saver, monkeypatch, put)
    with pytest.raises(StoreError) as failed:
        engine.run(SECOND, collection="movies", thread_id="t")
    assert failed.value.code == "store_unavailable"
    assert _questions(engine) == [FIRST]


def test_a_turn_whose_lock_connection_died_after_it_was_stored_is_answered(
    make_engine: Any, saver: Any, url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The turn lock's own session ends right after the turn's last checkpoint is written (its
    # release then finds a dead connection): the turn is stored, and answered.
    engine, _, _ = make_engine(happy(), checkpointer=saver, turn_locks=KeyedLocks(AdvisoryLocks(url, "turn")))
    engine.run(FIRST, collection="movies", thread_id="t")
    ended: list[int] = []

    def put(real: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        stored = real(config, checkpoint, metadata, versions)
        if _is_turn_end(checkpoint, 2):
            with psycopg.connect(url, autocommit=True) as conn:
                ended.extend(row[0] for row in conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"))
        return stored

    _wrap_put(saver, monkeypatch, put)
    result = engine.run(SECOND, collection="movies", thread_id="t")
    assert ended == [True], "the turn lock's session was not found"
    assert result.answer == "An answer [1]."
    assert _questions(engine) == [FIRST, SECOND]
