"""One writer per collection at a time, within an instance and across instances.

Chroma stores a collection's metadata (schema and the catalogue of known values) as one record
that every write replaces whole, so two concurrent ingests would each merge their new values
into the copy they read and the second would erase the first's. Writers therefore hold the
collection's lock from reading that record to writing it back.

Within a process a thread lock suffices. Several instances behind a load balancer share a
Postgres for checkpoints anyway, so they also share a Postgres advisory lock per collection
(session-level: if an instance dies, its connection closes and the lock goes with it). A session
lock also goes when Postgres restarts, while its writer still writes: so the writer re-checks its
``Lease`` just before it saves the catalogue (``Collection.before_commit``) and stops with
``WriteConflict`` if the lock is no longer its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from selfrag.errors import Overloaded
from selfrag.locking import AdvisoryLocks, KeyedLocks, Lease

__all__ = ["CollectionLocks"]


class CollectionLocks:
    def __init__(self, postgres_url: str | None = None, *, timeout_s: float = 60.0) -> None:
        self.postgres_url = postgres_url
        self.timeout_s = timeout_s
        self._locks = KeyedLocks(AdvisoryLocks(postgres_url, "collection") if postgres_url else None)

    @contextmanager
    def hold(self, collection: str) -> Iterator[Lease]:
        """Hold ``collection``'s write lock for the ``with`` block, which gets its ``Lease``.

        Raises:
            Overloaded: another writer held it for longer than ``timeout_s``.
            StoreError: the shared Postgres cannot be reached.
        """

        def busy() -> Overloaded:
            return Overloaded(f"collection {collection!r} is being written by another request; retry later")

        with self._locks.hold(collection, self.timeout_s, busy=busy) as lease:
            yield lease

    def probe(self, timeout_s: float) -> None:
        """Return when a write lock could be taken now (``KeyedLocks.probe``: with a Postgres, a new
        connection opens, as each write's lock opens one), for readiness.

        Raises:
            StoreError: the shared Postgres cannot be reached.
        """
        self._locks.probe(timeout_s)
