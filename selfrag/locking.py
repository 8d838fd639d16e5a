"""Named locks held across threads, and across processes through a shared layer.

Two things in selfrag must happen one at a time per name: writes to a collection (its catalogue
is one record every write replaces whole) and turns of a conversation (each turn reads the
thread's last checkpoint and writes the next; two at once would each append to the same history
and the second write would drop the first turn). ``KeyedLocks`` serialises them within a process;
its ``shared`` layer extends that to other processes:

- ``FileLocks``: processes on one machine sharing a data directory (SQLite checkpoints, the CLI
  beside a server): one ``flock`` file per name.
- ``AdvisoryLocks``: instances sharing a Postgres (scale-out): a session advisory lock per name,
  released by Postgres itself if the instance dies.

A wait is always bounded: past it ``hold`` raises the caller's ``busy()`` error, which says what
is busy (``Overloaded`` for a collection, ``ThreadBusy`` for a conversation).

A session advisory lock dies with its connection (a Postgres restart, a network cut), and another
instance may then take it while the first still writes. So ``hold`` yields a ``Lease`` whose
``held()`` asks the shared layer whether the lock is still this holder's: a writer checks it just
before it commits what the lock protects (the collection's catalogue record), and stops if not.
Turns are protected by the checkpoint write itself instead (``workflows.fenced_saver``).

``probe`` asks whether a new lock could be taken now, for readiness: an advisory lock needs a new
Postgres connection, which a Postgres may refuse (``max_connections`` full, its postmaster frozen)
while the connections already open, a pool's, still answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from selfrag._flock import open_lock_file, try_lock
from selfrag.errors import StoreError, describe

if TYPE_CHECKING:
    import psycopg

__all__ = ["AdvisoryLocks", "FileLocks", "KeyedLocks", "Lease", "SharedLocks"]

_POLL_S = 0.02
"""How often a wait on another process retries (neither flock nor Postgres offers a timed wait)."""


def _digest(namespace: str, key: str) -> bytes:
    return hashlib.sha256(f"selfrag:{namespace}:{key}".encode()).digest()


class Lease:
    """A held lock's proof: ``held()`` says whether it is still held (``check`` asks the shared
    layer; without one, a lock in this process cannot be lost)."""

    def __init__(self, check: Callable[[], bool] | None = None) -> None:
        self._check = check

    def held(self) -> bool:
        return True if self._check is None else self._check()


class SharedLocks(Protocol):
    """The cross-process layer: hold ``key`` until the block ends, or ``TimeoutError`` at ``deadline``;
    the block gets a ``Lease`` to re-check the lock before it commits."""

    def hold(self, key: str, deadline: float) -> AbstractContextManager[Lease]: ...

    def probe(self, timeout_s: float) -> None:
        """Return when a lock could be taken now; raise ``StoreError`` when the layer cannot be reached."""


class KeyedLocks:
    """One holder per key at a time: in this process, then in every process sharing ``shared``.

    Entries exist only while a key is held or awaited, so a server that has seen a million
    conversations keeps no lock for any of them.
    """

    def __init__(self, shared: SharedLocks | None = None) -> None:
        self.shared = shared
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, key: str, wait_s: float, *, busy: Callable[[], Exception]) -> Iterator[Lease]:
        """Hold ``key`` for the ``with`` block, waiting at most ``wait_s`` for it; the block gets the
        lock's ``Lease``.

        Raises:
            busy(): another holder kept it for longer than ``wait_s`` (raised only while
                waiting, never for what the block itself raises).
            StoreError: the shared layer cannot be reached.
        """
        deadline = time.monotonic() + max(wait_s, 0.0)
        with self._guard:
            lock, users = self._locks.get(key) or (threading.Lock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            if not lock.acquire(timeout=max(wait_s, 0.0)):
                raise busy()
            try:
                with contextlib.ExitStack() as stack:
                    lease = Lease()
                    if self.shared is not None:
                        try:
                            lease = stack.enter_context(self.shared.hold(key, deadline))
                        except TimeoutError:
                            raise busy() from None
                    yield lease
            finally:
                lock.release()
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users > 1:
                    self._locks[key] = (lock, users - 1)
                else:
                    del self._locks[key]

    def probe(self, timeout_s: float) -> None:
        """Whether the shared layer could give a lock now (``SharedLocks.probe``); in-process locks always can.

        Raises:
            StoreError: the shared layer cannot be reached.
        """
        if self.shared is not None:
            self.shared.probe(timeout_s)


class FileLocks:
    """An exclusive ``flock`` per key on a file of its own under ``directory`` (``selfrag._flock``).

    Two holders conflict even inside one process. Files are named by a hash of the key (a key may
    hold any character) and left in place: an empty file per name.
    """

    def __init__(self, directory: Path, namespace: str) -> None:
        self.directory = directory
        self.namespace = namespace

    def path(self, key: str) -> Path:
        return self.directory / f"{self.namespace}-{_digest(self.namespace, key).hex()[:40]}.lock"

    @contextmanager
    def hold(self, key: str, deadline: float) -> Iterator[Lease]:
        try:
            fd = open_lock_file(self.path(key))
        except OSError as exc:
            raise StoreError(f"cannot open the lock file under {self.directory}: {exc.strerror}") from None
        try:
            while not try_lock(fd, exclusive=True):
                if time.monotonic() >= deadline:
                    raise TimeoutError(key)
                time.sleep(_POLL_S)
            yield Lease()  # an flock lives as long as this descriptor: it cannot be lost; closing it releases it
        finally:
            os.close(fd)

    def probe(self, timeout_s: float) -> None:
        """Nothing to reach: the directory is the data directory, whose own checks (the SQLite
        checkpoint store beside it) say whether it can be written."""


class AdvisoryLocks:
    """A Postgres session advisory lock per key, each on a connection of its own.

    Its own connection, not one of the checkpointer's pool: a turn holds its lock while the graph
    writes checkpoints through that pool, and must not take a connection the writes need. The
    wait polls ``pg_try_advisory_lock`` rather than blocking inside a statement, whose open
    snapshot would stall another instance's ``CREATE INDEX CONCURRENTLY`` at start-up.
    """

    def __init__(self, url: str, namespace: str, *, connect_timeout_s: int = 10) -> None:
        self.url = url
        self.namespace = namespace
        self.connect_timeout_s = connect_timeout_s

    def key_id(self, key: str) -> int:
        """A stable signed 63-bit id per key, apart from every other namespace's."""
        return int.from_bytes(_digest(self.namespace, key)[:8], "big") >> 1

    @contextmanager
    def hold(self, key: str, deadline: float) -> Iterator[Lease]:
        import psycopg

        lock_id = self.key_id(key)
        where = _host_port(self.url)
        # Closing the session releases its advisory locks.
        with contextlib.closing(self._connect(self.connect_timeout_s)) as conn:
            try:
                while True:
                    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (lock_id,)).fetchone()
                    if row is not None and row[0]:
                        break
                    if time.monotonic() >= deadline:
                        raise TimeoutError(key)
                    time.sleep(_POLL_S * 2)
            except psycopg.Error as exc:
                raise StoreError(f"cannot take a {self.namespace} lock in the shared Postgres; try again later",
                                 detail=f"{where}: {describe(exc, 300)}", dependency="checkpoints") from exc

            def still_held() -> bool:
                # Still this session's? A restart closed the session (an error here), and with it the lock.
                try:
                    row = conn.execute(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
                        "AND granted AND ((classid::bigint << 32) | objid::bigint) = %s",
                        (lock_id,),
                    ).fetchone()
                except psycopg.Error:
                    return False
                return row is not None and row[0] > 0

            yield Lease(still_held)

    def probe(self, timeout_s: float) -> None:
        """Open and close a connection, as ``hold`` does first (libpq waits at least 2 s for one:
        a caller that must answer sooner bounds its own wait)."""
        self._connect(max(2, math.ceil(timeout_s))).close()

    def _connect(self, timeout_s: int) -> psycopg.Connection[Any]:
        import psycopg

        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=timeout_s)
        except psycopg.Error as exc:
            # The address is for the log (``detail``), never for a client.
            raise StoreError(f"the shared Postgres cannot be reached for a {self.namespace} lock; try again later",
                             detail=f"{_host_port(self.url)}: {describe(exc, 300)}", dependency="checkpoints") from exc


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or '?'}:{parts.port or 5432}"
