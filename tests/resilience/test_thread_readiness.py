"""``/readyz`` says thread memory is down when a turn cannot run, not only when a pooled read fails.

Each turn opens a Postgres connection of its own for its lock (``selfrag.locking.AdvisoryLocks``),
so a Postgres whose pooled connections still answer while no new one can be opened (``max_connections``
full, its postmaster frozen) failed every turn after 10 s while ``/readyz?capability=threads`` said
ready (the operator probe's F8). Questions without a thread need no Postgres: ``/readyz`` stays 200,
``degraded``, as the README documents for a capability that is down.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest

from selfrag.service import create_app
from selfrag.settings import Settings
from tests.pg import LocalPostgres, start_postgres
from tests.service.conftest import MOVIES, PLOTS, Live, ThreadedServer
from tests.service.fake_server import scripted_engine, scripted_store
from workflows.factory import close_checkpointer

pytestmark = pytest.mark.integration

TURN = {"question": "Which movie has dinosaurs?", "collection": "movies", "thread_id": "t"}
MAX_CONNECTIONS = 8


@pytest.fixture(scope="module")
def postgres() -> Iterator[LocalPostgres]:
    """A server of its own with few connections, so that filling them is quick."""
    server = start_postgres()
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET max_connections = {MAX_CONNECTIONS}")
            conn.execute("ALTER SYSTEM SET superuser_reserved_connections = 0")  # the tests connect as a superuser
        server.restart()
        yield server
    finally:
        server.stop()


@pytest.fixture
def live(postgres: LocalPostgres, tmp_path: Path) -> Iterator[Live]:
    settings = Settings(home=tmp_path / "home", checkpoints={"url": postgres.url, "pool_size": 2})
    store = scripted_store(settings)
    store.create_collection("movies", MOVIES).add(PLOTS)
    engine = scripted_engine(settings, store)
    try:
        with ThreadedServer(create_app(settings, engine=engine, store=store)) as server:
            yield Live(f"http://127.0.0.1:{server.port}", settings, store, engine)
    finally:
        assert engine.checkpointer is not None
        close_checkpointer(engine.checkpointer)
        store.close()


def _threads_ready(live: Live) -> bool:
    with live.client() as http:
        reply = http.get("/readyz", params={"capability": "threads"})
    assert reply.status_code in (200, 503), reply.text
    return reply.status_code == 200


def test_threads_are_not_ready_while_postgres_refuses_new_connections(live: Live, postgres: LocalPostgres) -> None:
    with live.client() as http:
        assert http.post("/v1/answers", json=TURN).status_code == 200  # the pool holds a connection
    assert _threads_ready(live)
    with ExitStack() as held:
        while True:  # every connection slot taken: the pooled ones still answer, no new one opens
            try:
                held.enter_context(psycopg.connect(postgres.url, autocommit=True))
            except psycopg.OperationalError as exc:
                assert "too many clients" in str(exc)
                break
        with live.client() as http:
            threads = http.get("/readyz", params={"capability": "threads"})
            overall = http.get("/readyz")
            turn = http.post("/v1/answers", json=TURN)
            read = http.get("/v1/threads/t")
        assert threads.status_code == 503 and threads.json()["error"]["code"] == "not_ready", threads.text
        assert threads.json()["capabilities"]["threads"] == {"ready": False, "down": ["checkpoints"]}
        assert threads.json()["error"]["message"].startswith("threads unavailable: checkpoints")
        # What readiness says is what a turn meets; questions without a thread still work.
        assert turn.status_code == 503 and turn.json()["error"]["code"] == "store_unavailable", turn.text
        assert read.status_code == 200  # a pooled read: reading a thread needs no new connection
        assert overall.status_code == 200 and overall.json()["status"] == "degraded", overall.text
        assert overall.json()["capabilities"]["answers"]["ready"] is True
    assert _threads_ready(live)  # the connections are free again


def test_threads_are_not_ready_while_the_postmaster_is_frozen(live: Live, postgres: LocalPostgres) -> None:
    with live.client() as http:
        assert http.post("/v1/answers", json=TURN).status_code == 200
    os.kill(postgres.process.pid, signal.SIGSTOP)  # its backends run on; nobody accepts a new connection
    try:
        with live.client() as http:
            threads = http.get("/readyz", params={"capability": "threads"})
    finally:
        os.kill(postgres.process.pid, signal.SIGCONT)
    assert threads.status_code == 503 and threads.json()["error"]["code"] == "not_ready", threads.text
    assert threads.json()["checks"]["checkpoints"]["ok"] is False
    assert _threads_ready(live)
