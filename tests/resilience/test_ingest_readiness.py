"""``/readyz`` says ingest is down when a collection write cannot take its lock, as it says for turns.

With a Postgres configured, a collection write (an ingest, creating or deleting a collection) holds
the collection's advisory lock on a Postgres connection of its own (``selfrag.service.locks``), so
a Postgres that refuses new connections (``max_connections`` full, its postmaster frozen) fails
every ingest while its store and embeddings answer; ``/readyz?capability=ingest`` said ready (the
F8 gap ``test_thread_readiness.py`` closed for turns). Questions need no collection lock: ``/readyz``
without a capability stays 200, ``degraded``, as the README documents for a capability that is down.
"""

from __future__ import annotations

import os
import signal
from contextlib import ExitStack

import psycopg
import pytest

from tests.pg import LocalPostgres
from tests.resilience import test_thread_readiness as threads
from tests.service.conftest import Live

pytestmark = pytest.mark.integration

# The same server (few connection slots) and service as the threads' readiness tests.
postgres, live = threads.postgres, threads.live

DOCUMENT = {"id": "walle", "text": "A robot tidies an empty Earth and falls in love.",
            "metadata": {"genre": "animated", "year": 2008, "director": "Andrew Stanton"}}


def _ingest_ready(live: Live) -> bool:
    with live.client() as http:
        reply = http.get("/readyz", params={"capability": "ingest"})
    assert reply.status_code in (200, 503), reply.text
    return reply.status_code == 200


def test_ingest_is_not_ready_while_postgres_refuses_new_connections(live: Live, postgres: LocalPostgres) -> None:
    assert _ingest_ready(live)
    with ExitStack() as held:
        while True:  # every connection slot taken: the store and the embeddings still answer
            try:
                held.enter_context(psycopg.connect(postgres.url, autocommit=True))
            except psycopg.OperationalError as exc:
                assert "too many clients" in str(exc)
                break
        with live.client() as http:
            ingest = http.get("/readyz", params={"capability": "ingest"})
            overall = http.get("/readyz")
            written = http.post("/v1/collections/movies/documents", json={"documents": [DOCUMENT]})
            asked = http.post("/v1/answers", json={"question": "Which movie has dinosaurs?", "collection": "movies"})
        assert ingest.status_code == 503 and ingest.json()["error"]["code"] == "not_ready", ingest.text
        assert ingest.json()["capabilities"]["ingest"] == {"ready": False, "down": ["collection_locks"]}
        assert ingest.json()["error"]["message"].startswith("ingest unavailable: collection_locks")
        assert "127.0.0.1" not in ingest.text  # the driver's text stays in the server log
        # What readiness says is what an ingest meets; questions without a thread still work.
        assert written.status_code == 503 and written.json()["error"]["code"] == "store_unavailable", written.text
        assert asked.status_code == 200, asked.text
        assert overall.status_code == 200 and overall.json()["status"] == "degraded", overall.text
        assert overall.json()["capabilities"]["answers"]["ready"] is True
    assert _ingest_ready(live)  # the connections are free again
    with live.client() as http:
        assert http.post("/v1/collections/movies/documents", json={"documents": [DOCUMENT]}).status_code == 201


def test_ingest_is_not_ready_while_the_postmaster_is_frozen(live: Live, postgres: LocalPostgres) -> None:
    os.kill(postgres.process.pid, signal.SIGSTOP)  # its backends run on; nobody accepts a new connection
    try:
        with live.client() as http:
            ingest = http.get("/readyz", params={"capability": "ingest"})
    finally:
        os.kill(postgres.process.pid, signal.SIGCONT)
    assert ingest.status_code == 503 and ingest.json()["error"]["code"] == "not_ready", ingest.text
    assert ingest.json()["checks"]["collection_locks"]["ok"] is False
    assert _ingest_ready(live)
