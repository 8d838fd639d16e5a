"""A turn whose own checkpoint write failed is a store failure (503), not another turn's (409).

The compare-and-set (``workflows.fenced_saver``) stores a checkpoint only on top of the one it
follows. When one of a turn's writes fails before its commit (its connection killed: Postgres
restarted, a backend terminated), the turn's next write follows a checkpoint that never landed,
and was refused as ``ThreadConflict`` (409 ``thread_busy``, "another turn of this thread was
stored"), though no other turn wrote anything: the checkpoint store failed. LangGraph versions in
our range differ on whether a run writes on after a failed save (1.2.0 does, in a ``finally``;
1.2.24 re-raises the first failure instead), so these tests drive the saver as a run does: one
write after another, each on top of the last, the run's id and the checkpoint it started from in
every write's metadata (``workflows.threads``). A backend is ended with ``pg_terminate_backend``
inside the write's transaction, after its check and before its commit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.pregel._loop import SyncPregelLoop

from selfrag.errors import StoreError, ThreadConflict
from selfrag.settings import Settings
from tests.pg import create_database
from tests.workflows.conftest import happy
from workflows.factory import close_checkpointer, open_checkpointer
from workflows.fenced_saver import FencedPostgresSaver
from workflows.threads import TURN_BASE, TURN_ID

pytestmark = pytest.mark.integration


@pytest.fixture
def url(postgres_url: str) -> str:
    return create_database(postgres_url, f"test_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def saver(url: str, tmp_path: Path) -> Iterator[Any]:
    saver = open_checkpointer(Settings(home=tmp_path / "home", checkpoints={"url": url, "pool_size": 3}))
    yield saver
    close_checkpointer(saver)


class Run:
    """One turn's run writing checkpoints one after another, as LangGraph's loop does."""

    def __init__(self, saver: Any, base: str | None) -> None:
        self.saver, self.base, self.id = saver, base, uuid.uuid4().hex
        self.last = base
        """The checkpoint the next write follows: the last this run wrote (stored or not)."""

    def write(self) -> str:
        checkpoint = empty_checkpoint()
        pinned = {} if self.last is None else {"checkpoint_id": self.last}
        stamp = {TURN_ID: self.id, **({} if self.base is None else {TURN_BASE: self.base})}
        config: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": "", **pinned}, "metadata": stamp}
        self.last = checkpoint["id"]  # the loop moves on whether or not the save landed
        self.saver.put(config, checkpoint, {"source": "loop", "step": 1}, {})
        return checkpoint["id"]


@pytest.fixture
def lose_next_write(url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Arm it: the next checkpoint write's connection is terminated inside its transaction."""
    armed: list[bool] = []
    real = PostgresSaver.put

    def put(self: Any, *args: Any) -> Any:
        if armed:
            armed.clear()
            with psycopg.connect(url, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", (self.conn.info.backend_pid,))
        return real(self, *args)

    monkeypatch.setattr(PostgresSaver, "put", put)
    return lambda: armed.append(True)


def _newest(saver: Any) -> str:
    newest = saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
    return str(newest.config["configurable"]["checkpoint_id"])


def test_a_write_after_the_turns_own_lost_write_is_a_store_error(saver: Any, lose_next_write: Any) -> None:
    base = Run(saver, None).write()
    run = Run(saver, base)
    kept = run.write()
    lose_next_write()
    with pytest.raises(psycopg.OperationalError):
        run.write()
    with pytest.raises(StoreError) as failed:
        run.write()
    assert not isinstance(failed.value, ThreadConflict)
    assert failed.value.code == "store_unavailable" and failed.value.dependency == "checkpoints"
    assert _newest(saver) == kept  # nothing written past the gap


def test_a_write_after_the_turns_lost_first_write_is_a_store_error(saver: Any, lose_next_write: Any) -> None:
    # Nothing of the turn landed: the thread's newest is still the checkpoint the run started from.
    base = Run(saver, None).write()
    run = Run(saver, base)
    lose_next_write()
    with pytest.raises(psycopg.OperationalError):
        run.write()
    with pytest.raises(StoreError) as failed:
        run.write()
    assert failed.value.code == "store_unavailable" and failed.value.dependency == "checkpoints"
    assert _newest(saver) == base


def test_a_write_after_another_turn_moved_the_head_is_still_a_conflict(saver: Any) -> None:
    base = Run(saver, None).write()
    slow = Run(saver, base)
    ours = slow.write()
    Run(saver, ours).write()  # another turn (its lock lost) wrote on top
    with pytest.raises(ThreadConflict) as refused:
        slow.write()
    assert refused.value.code == "thread_busy"


def test_another_turn_on_top_after_the_turns_own_lost_write_is_still_a_conflict(
    saver: Any, lose_next_write: Any,
) -> None:
    # Both at once: the turn's write was lost, and another turn then stored on what had landed.
    base = Run(saver, None).write()
    slow = Run(saver, base)
    ours = slow.write()
    lose_next_write()
    with pytest.raises(psycopg.OperationalError):
        slow.write()
    Run(saver, ours).write()
    with pytest.raises(ThreadConflict):
        slow.write()


def test_another_turn_on_the_base_after_the_turns_lost_first_write_is_still_a_conflict(
    saver: Any, lose_next_write: Any,
) -> None:
    base = Run(saver, None).write()
    slow = Run(saver, base)
    lose_next_write()
    with pytest.raises(psycopg.OperationalError):
        slow.write()
    Run(saver, base).write()
    with pytest.raises(ThreadConflict):
        slow.write()


@pytest.mark.parametrize("lost", [1, 3], ids=["first-write", "mid-turn"])
def test_an_engine_run_that_writes_on_after_a_lost_write_reports_no_conflict(
    make_engine: Any, saver: Any, lose_next_write: Any, monkeypatch: pytest.MonkeyPatch, lost: int,
) -> None:
    # The engine's runs carry the stamp: with the loop of LangGraph 1.2.0 (a save is attempted
    # after the previous one failed), every write after the lost one is a store failure.
    def put_after_previous(self: Any, prev: Any, delta_write_futs: Any, *args: Any) -> Any:
        try:
            if prev is not None:
                prev.result()
        finally:
            self.checkpointer.put(*args)

    monkeypatch.setattr(SyncPregelLoop, "_checkpointer_put_after_previous", put_after_previous)
    refused: list[Exception] = []
    real, writes = FencedPostgresSaver.put, [0]

    def put(self: Any, *args: Any) -> Any:
        writes[0] += 1
        if writes[0] == lost:
            lose_next_write()
        try:
            return real(self, *args)
        except Exception as exc:
            refused.append(exc)
            raise

    engine, _, _ = make_engine(happy(), checkpointer=saver)
    engine.run("Which animated movie from 1995 is there?", collection="movies", thread_id="t")
    monkeypatch.setattr(FencedPostgresSaver, "put", put)
    with pytest.raises(StoreError) as failed:
        engine.run("Which movie has toys?", collection="movies", thread_id="t")
    assert failed.value.code == "store_unavailable"
    assert len(refused) > 1, "the run did not write on after the lost write"
    assert not [exc for exc in refused if isinstance(exc, ThreadConflict)], refused
    assert [t["question"] for t in engine.history("t")] == ["Which animated movie from 1995 is there?"]
