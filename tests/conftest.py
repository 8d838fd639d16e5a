"""Suite-wide guards: no network beyond loopback, a private data directory per test."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else None
    if host is not None:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            ip = None
        if host != "localhost" and (ip is None or not ip.is_loopback):
            raise ConnectionRefusedError(f"tests may not reach the network: connect to {address!r} blocked")
    return _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _loopback_only  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("SELFRAG_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SELFRAG_HOME", str(tmp_path / "selfrag-home"))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL on 127.0.0.1 for the session (see ``tests/pg.py``); yields its database URL.

    Fails rather than skips when the server cannot start: the Postgres tests must run in CI.
    """
    # Imported here: psycopg and pgserver are needed only by the tests that ask for a server.
    try:
        from tests.pg import PostgresStartError, start_postgres
    except ImportError as exc:
        pytest.fail(f"cannot start the test PostgreSQL server: {exc.name} is not installed", pytrace=False)

    try:
        server = start_postgres()
    except PostgresStartError as exc:
        pytest.fail(f"cannot start the test PostgreSQL server: {exc}", pytrace=False)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def chroma_client(tmp_path: Any) -> Iterator[Any]:
    """A real embedded Chroma in the test's own directory (the store and ingest suites use it)."""
    import chromadb

    from selfrag.store import chroma_settings

    client = chromadb.PersistentClient(path=tmp_path / "chroma", settings=chroma_settings())
    yield client
    client.close()  # ClientAPI omits close(); Client has it
