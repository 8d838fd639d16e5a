"""A hostile or heavy ingest never stalls the server for anyone else.

The server runs in a process of its own (``tests/service/fake_server.py``: the real service around
the scripted chat model), so that a request which seizes its interpreter (as the backtracking
regex engine did, never letting go of the GIL) stalls the server only, and this test's clients
can still measure and fail rather than hang with it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from selfrag.service import KeyFile
from tests.servers import ServerProcess, free_port

REPO = Path(__file__).resolve().parents[2]
PROMPT_S = 3.0
""""Promptly": an answer from the scripted model takes a few tens of milliseconds on an idle
machine; this bound leaves room for a loaded one and is far below the stalls it catches
(seconds for a slow ingest, forever for a backtracking regex)."""

MOVIES = [
    {"id": "toys", "text": "Toys come alive and have a blast doing so. Woody leads them.", "metadata": {}},
    {"id": "dino", "text": "Scientists bring back dinosaurs and mayhem breaks loose on the island.", "metadata": {}},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    home = tmp_path_factory.mktemp("responsive")
    keys = KeyFile()
    keys, acme = keys.add(key_id="acme", tenant="acme", read=[], write=["acme-*"])
    keys, globex = keys.add(key_id="globex", tenant="globex", read=[], write=["globex-*"])
    keys.save(home / "keys.json")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SELFRAG_")} | {"SELFRAG_HOME": str(home)}
    process = ServerProcess.start(
        "selfrag", [sys.executable, str(REPO / "tests/service/fake_server.py"), "--port", str(port)],
        home / "server.log", f"http://127.0.0.1:{port}", env=env, cwd=REPO,
    )
    try:
        process.wait_until_up("/healthz")
        with _client(process.url, globex) as http:
            assert http.post("/v1/collections", json={"name": "globex-movies"}).status_code == 201
            assert http.post("/v1/collections/globex-movies/documents", json={"documents": MOVIES}).status_code == 201
        yield process.url, {"acme": acme, "globex": globex}
    finally:
        process.stop()


def _client(url: str, key: str | None = None, timeout: float = PROMPT_S) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=url, headers=headers, timeout=timeout, trust_env=False)


class Background:
    """One request in a thread: its reply (or error) and how long it took."""

    def __init__(self, send: Any) -> None:
        self.reply: httpx.Response | None = None
        self.error: Exception | None = None
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, args=(send,), daemon=True)
        self._thread.start()

    def _run(self, send: Any) -> None:
        start = time.perf_counter()
        try:
            self.reply = send()
        except Exception as exc:  # reported by the test
            self.error = exc
        self.seconds = time.perf_counter() - start

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float) -> None:
        self._thread.join(timeout)


def _probe(url: str, globex: str) -> dict[str, float]:
    """Time one liveness check and one question of another tenant; fail if either is refused or slow."""
    timings: dict[str, float] = {}
    with _client(url) as anyone, _client(url, globex) as other:
        start = time.perf_counter()
        assert anyone.get("/healthz").status_code == 200
        timings["healthz"] = time.perf_counter() - start
        start = time.perf_counter()
        reply = other.post("/v1/answers", json={"question": "Which toys come alive?", "collection": "globex-movies"})
        assert reply.status_code == 200, reply.text
        timings["answer"] = time.perf_counter() - start
    return timings


def test_a_catastrophic_regex_over_http_neither_hangs_the_ingest_nor_the_server(server: tuple[str, dict[str, str]]) -> None:
    url, keys = server
    schema = {"attributes": [{"name": "x", "type": "string"}], "extractors": [{"attribute": "x", "pattern": "(a+)+$"}]}
    with _client(url, keys["acme"], timeout=60) as acme:
        assert acme.post("/v1/collections", json={"name": "acme-hostile", "schema": schema}).status_code == 201
        documents = [{"id": "short", "text": "a" * 28 + "!"}, {"id": "long", "text": "a" * 40_000 + "!"}]
        ingest = Background(lambda: acme.post("/v1/collections/acme-hostile/documents", json={"documents": documents}))
        probes = []
        try:
            for _ in range(3):
                probes.append(_probe(url, keys["globex"]))
        finally:
            ingest.wait(60)
    assert ingest.error is None and ingest.reply is not None, ingest.error
    assert ingest.reply.status_code == 201, ingest.reply.text
    assert ingest.seconds < PROMPT_S, ingest.seconds
    assert max(max(p.values()) for p in probes) < PROMPT_S, probes


def test_a_slow_ingest_leaves_health_checks_and_other_tenants_responsive(server: tuple[str, dict[str, str]]) -> None:
    url, keys = server
    # About 3 MB of distinct text: thousands of chunks to split, embed and write (seconds of work).
    words = [f"w{n}" for n in range(50_000)]
    documents = [{"id": f"doc-{i}", "text": " ".join(words[(i * 37) % 49_000:][:300])} for i in range(1_200)]
    with _client(url, keys["acme"], timeout=300) as acme:
        assert acme.post("/v1/collections", json={"name": "acme-big"}).status_code == 201
        ingest = Background(lambda: acme.post("/v1/collections/acme-big/documents", json={"documents": documents}))
        probes = []
        try:
            while ingest.running:
                probes.append(_probe(url, keys["globex"]))
        finally:
            ingest.wait(300)
    assert ingest.reply is not None and ingest.reply.status_code == 201, ingest.error or ingest.reply.text
    assert len(probes) >= 2, f"the ingest took {ingest.seconds:.1f} s: too short to probe the server during it"
    assert max(max(p.values()) for p in probes) < PROMPT_S, probes


def test_head_healthz(server: tuple[str, dict[str, str]]) -> None:
    url, _ = server
    with _client(url) as anyone:
        reply = anyone.head("/healthz")
    assert reply.status_code == 200 and reply.content == b""
