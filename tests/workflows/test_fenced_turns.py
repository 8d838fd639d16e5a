"""A Postgres restart must not lose a turn: two engines (two instances) share one thread in a real
Postgres; the slow turn's lock dies with its connection, the other turn runs and is stored, and the
slow turn's write is refused (``thread_busy``) instead of overwriting it."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import ProviderError, StoreError, ThreadConflict
from selfrag.locking import AdvisoryLocks, KeyedLocks
from selfrag.settings import Settings
from tests.pg import LocalPostgres, create_database, start_postgres
from tests.workflows.conftest import happy
from workflows import RunOptions
from workflows.factory import close_checkpointer, open_checkpointer

pytestmark = pytest.mark.integration

FIRST = "Which animated movie from 1995 is there?"


def held_generation(started: threading.Event, release: threading.Event) -> dict[str, Any]:
    def generate(messages: list[Any]) -> str:
        started.set()
        assert release.wait(60), "the test never released the slow turn"
        return "Toy Story [1]."

    return happy(generate=generate)


def _answer_meanwhile(engine: Any, question: str, retry_on: tuple[type[Exception], ...]) -> Any:
    """The other instance's turn, sent again as a client would after a 409 or a 503 (the slow
    turn's last checkpoint before its model call may land just after it began)."""
    for _ in range(50):
        try:
            return engine.run(question, collection="movies", thread_id="t")
        except retry_on:
            time.sleep(0.1)
    raise AssertionError("the other turn never got through")


def _run_slow(engine: Any, question: str, out: dict[str, Any]) -> threading.Thread:
    def go() -> None:
        try:
            out["result"] = engine.run(question, collection="movies", thread_id="t", options=RunOptions(turn_wait_s=30))
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            out["error"] = exc

    thread = threading.Thread(target=go)
    thread.start()
    return thread


@pytest.fixture
def settings(postgres_url: str, tmp_path: Path) -> Settings:
    url = create_database(postgres_url, f"test_{uuid.uuid4().hex[:12]}")
    return Settings(home=tmp_path / "home", checkpoints={"url": url, "pool_size": 3})


def test_a_turn_whose_lock_was_lost_cannot_overwrite_the_turn_that_ran_meanwhile(make_engine: Any, settings: Settings) -> None:
    # A lost lock, without the restart: engine A's turns take no shared lock at all.
    saver_a, saver_b = open_checkpointer(settings), open_checkpointer(settings)
    try:
        started, release = threading.Event(), threading.Event()
        a, _, _ = make_engine(held_generation(started, release), checkpointer=saver_a, turn_locks=KeyedLocks())
        b, _, _ = make_engine(happy(), checkpointer=saver_b, turn_locks=KeyedLocks())
        b.run(FIRST, collection="movies", thread_id="t")
        out: dict[str, Any] = {}
        slow = _run_slow(a, "Which movie has toys?", out)
        assert started.wait(30)
        _answer_meanwhile(b, "Which movie has dinosaurs?", (ThreadConflict,))
        release.set()
        slow.join(60)
        assert isinstance(out.get("error"), ThreadConflict), out
        assert out["error"].code == "thread_busy" and out["error"].status == 409
        questions = [t["question"] for t in b.history("t")]
        assert questions == [FIRST, "Which movie has dinosaurs?"]  # the answered turn is kept; the slow one is not stored
    finally:
        close_checkpointer(saver_a)
        close_checkpointer(saver_b)


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[LocalPostgres]:
    server = start_postgres(durable=True)  # the restart must not lose what was committed
    yield server
    server.stop()


def test_a_postgres_restart_under_a_running_turn_loses_no_turn(make_engine: Any, restartable: LocalPostgres, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", checkpoints={"url": restartable.url, "pool_size": 3})
    saver_a, saver_b = open_checkpointer(settings), open_checkpointer(settings)
    try:
        started, release = threading.Event(), threading.Event()
        locks_a = KeyedLocks(AdvisoryLocks(restartable.url, "turn"))
        locks_b = KeyedLocks(AdvisoryLocks(restartable.url, "turn"))
        a, _, _ = make_engine(held_generation(started, release), checkpointer=saver_a, turn_locks=locks_a)
        b, _, _ = make_engine(happy(), checkpointer=saver_b, turn_locks=locks_b)
        b.run(FIRST, collection="movies", thread_id="t")
        out: dict[str, Any] = {}
        slow = _run_slow(a, "Which movie has toys?", out)
        assert started.wait(30)
        restartable.restart()  # A's advisory lock dies with its session
        # B's pool reconnects; its turn takes the lock at once and is stored.
        _answer_meanwhile(b, "Which movie has dinosaurs?", (ThreadConflict, StoreError))
        release.set()
        slow.join(60)
        # The slow turn is refused (or its write fails on a dead connection): never stored over B's.
        assert isinstance(out.get("error"), (ThreadConflict, StoreError)), out
        assert [t["question"] for t in b.history("t")] == [FIRST, "Which movie has dinosaurs?"]
    finally:
        close_checkpointer(saver_a)
        close_checkpointer(saver_b)


def _dies_while_down(down: threading.Event) -> dict[str, Any]:
    def generate(messages: list[Any]) -> str:
        if down.is_set():
            raise ConnectionError("connection refused by the model server")
        return "Toy Story [1]."

    return happy(generate=generate)


def test_a_turn_after_a_failed_one_is_stored_on_top_of_it(make_engine: Any, settings: Settings) -> None:
    # The failed turn's checkpoints stay the thread's newest; the next turn writes on top of them
    # (the compare-and-set sees one line), carrying the last completed turn's history.
    saver = open_checkpointer(settings)
    try:
        down = threading.Event()
        engine, _, _ = make_engine(_dies_while_down(down), checkpointer=saver)
        engine.run(FIRST, collection="movies", thread_id="t")
        down.set()
        with pytest.raises(ProviderError):
            engine.run("Which movie has toys?", collection="movies", thread_id="t")
        assert [t["question"] for t in engine.history("t")] == [FIRST]
        down.clear()
        engine.run("Which movie has dinosaurs?", collection="movies", thread_id="t")
        assert [t["question"] for t in engine.history("t")] == [FIRST, "Which movie has dinosaurs?"]
    finally:
        close_checkpointer(saver)


def test_a_turn_cannot_write_over_a_turn_stored_after_it_read_the_thread(make_engine: Any, settings: Settings,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # B read the thread (its newest checkpoint a failed turn's), then A, whose lock was lost, stored
    # a turn. B carries the history it read, so writing on A's turn would drop it: B's run is
    # pinned to the checkpoint it read, and its first write fails the compare-and-set.
    saver_a, saver_b = open_checkpointer(settings), open_checkpointer(settings)
    try:
        down = threading.Event()
        a, _, _ = make_engine(_dies_while_down(down), checkpointer=saver_a, turn_locks=KeyedLocks())
        b, _, _ = make_engine(happy(), checkpointer=saver_b, turn_locks=KeyedLocks())
        a.run(FIRST, collection="movies", thread_id="t")
        down.set()
        with pytest.raises(ProviderError):
            a.run("Which movie has toys?", collection="movies", thread_id="t")
        down.clear()
        read = b._head("t")
        a.run("Which movie has dinosaurs?", collection="movies", thread_id="t")  # stored after B read
        monkeypatch.setattr(b, "_head", lambda thread_id: read)
        with pytest.raises(ThreadConflict):
            b.run("Which movie has dreams?", collection="movies", thread_id="t")
        assert [t["question"] for t in a.history("t")] == [FIRST, "Which movie has dinosaurs?"]
    finally:
        close_checkpointer(saver_a)
        close_checkpointer(saver_b)
