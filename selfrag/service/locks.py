"""One writer per collection at a time, within an instance and across instances.

Chroma stores a collection's metadata (schema and the catalogue of known values) as one record
that every write replaces whole, so two concurrent ingests would each merge their new values
into the copy they read and the second would erase the first's. Writers therefore hold the
collection's lock from reading that record to writing it back.

Within a process a thread lock suffices. Several instances behind a load balancer share a
Postgres for checkpoints anyway, so they also share a Postgres advisory lock per collection
(session-level: if an instance dies, its connection closes and the lock goes with it).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from selfrag.errors import Overloaded, StoreError

__all__ = ["CollectionLocks"]


class CollectionLocks:
    def __init__(self, postgres_url: str | None = None, *, timeout_s: float = 60.0) -> None:
        self.postgres_url = postgres_url
        self.timeout_s = timeout_s
        self._local: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def hold(self, collection: str) -> Iterator[None]:
        """Hold ``collection``'s write lock for the ``with`` block.

        Raises:
            Overloaded: another writer held it for longer than ``timeout_s``.
            StoreError: the shared Postgres cannot be reached.
        """
        with self._guard:
            lock = self._local.setdefault(collection, threading.Lock())
        if not lock.acquire(timeout=self.timeout_s):
            raise Overloaded(f"collection {collection!r} is being written by another request; retry later")
        try:
            if self.postgres_url is None:
                yield
            else:
                with self._shared(collection):
                    yield
        finally:
            lock.release()

    @contextmanager
    def _shared(self, collection: str) -> Iterator[None]:
        import psycopg

        # A stable 63-bit key per collection, apart from any other advisory lock user.
        key = int.from_bytes(hashlib.sha256(f"selfrag:collection:{collection}".encode()).digest()[:8], "big") >> 1
        where = _host_port(self.postgres_url or "")
        try:
            conn = psycopg.connect(self.postgres_url or "", autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach the Postgres at {where} for the collection write lock: {type(exc).__name__}") from None
        with conn:
            try:
                conn.execute(f"SET lock_timeout = {int(self.timeout_s * 1000)}")
                conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            except psycopg.errors.LockNotAvailable:
                raise Overloaded(
                    f"collection {collection!r} is being written by another instance; retry later"
                ) from None
            except psycopg.Error as exc:
                raise StoreError(f"cannot take the collection write lock at {where}: {type(exc).__name__}") from None
            yield  # closing the connection releases the session lock, even if the block raised


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or '?'}:{parts.port or 5432}"
