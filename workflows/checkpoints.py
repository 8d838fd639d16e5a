"""Thread memory's checkpoint store: an embedded SQLite file, or a Postgres shared by many processes.

SQLite (the default, ``checkpoints.url`` unset) suits one process: the CLI, a single service.
Several stateless service instances behind a load balancer must see each other's threads, so
they share a Postgres through langgraph-checkpoint-postgres (``checkpoints.url =
"postgresql://user:pass@host:port/db"``). That package, psycopg and psycopg-pool are imported
only when a Postgres URL is configured, so the SQLite default does not need them.

Whoever opens a checkpointer closes it with ``close_checkpointer``: the SQLite connection or the
Postgres pool (whose worker threads would otherwise outlive the engine).

A Postgres store is a ``FencedPostgresSaver`` (``workflows.fenced_saver``): each checkpoint of a
thread is written only on top of the one it follows, so a turn whose lock was lost (Postgres
restarted under it) cannot overwrite the turn that ran meanwhile.

Every process that shares a checkpoint store must also share the locks that run a thread's
turns one at a time (see ``workflows.engine``): ``turn_locks`` gives the layer that matches the
store, a ``flock`` per thread under the data directory beside SQLite, a Postgres advisory lock
beside Postgres.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from selfrag.deadline import budget
from selfrag.errors import ConfigError, StoreError, describe, one_line
from selfrag.home import home_unusable
from selfrag.locking import AdvisoryLocks, FileLocks, KeyedLocks
from selfrag.settings import Settings

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg import Connection
    from psycopg.rows import DictRow

__all__ = ["POSTGRES_SCHEMES", "checkpoint_errors", "close_checkpointer", "open_checkpointer", "turn_locks"]

POSTGRES_SCHEMES = ("postgres", "postgresql")
"""URL schemes that select the shared Postgres store."""

_CONNECT_TIMEOUT_S = 10
"""Per-connection timeout unless the URL sets ``connect_timeout``; an unreachable host fails fast."""

_SETUP_WAIT_S = 60.0
"""How long to wait for another process to finish creating or migrating the tables."""

# Postgres advisory-lock key that serialises setup() across processes ("selfrag!" as int64).
_SETUP_LOCK_KEY = int.from_bytes(b"selfrag!", "big")


def open_checkpointer(settings: Settings) -> BaseCheckpointSaver[str]:
    """The configured checkpoint store, its tables created (or migrated) and ready.

    Args:
        settings: ``settings.checkpoints.url`` picks the store: None for SQLite at
            ``settings.checkpoint_path``, a ``postgresql://`` URL for a shared Postgres.

    Returns:
        A ``SqliteSaver``, or a ``PostgresSaver`` over a connection pool of at most
        ``settings.checkpoints.pool_size`` connections. Close it with ``close_checkpointer``.

    Raises:
        ConfigError: the URL has another scheme, is malformed, or the Postgres extras are missing.
        StoreError: the Postgres cannot be reached or its tables cannot be set up; the SQLite
            file (or the selfrag home it is in) cannot be opened, or stays locked by other
            processes for ``SQLITE_SETUP_WAIT_S``.
    """
    url = settings.checkpoints.url
    if url is None:
        return _open_sqlite(settings)
    scheme = urlsplit(url).scheme.lower()
    if scheme not in POSTGRES_SCHEMES:
        raise ConfigError(
            f"unsupported checkpoints.url scheme {scheme!r}: use postgresql://user:pass@host:port/db, "
            "or leave it unset for the SQLite file under the data directory"
        )
    return _open_postgres(url, settings.checkpoints.pool_size)


def turn_locks(settings: Settings) -> KeyedLocks:
    """The locks that serialise a thread's turns across every process sharing the checkpoint store
    ``settings`` name. They hold nothing open between turns, so there is nothing to close."""
    url = settings.checkpoints.url
    if url is not None and urlsplit(url).scheme.lower() in POSTGRES_SCHEMES:
        return KeyedLocks(AdvisoryLocks(url, "turn"))
    return KeyedLocks(FileLocks(settings.home / "locks", "turn"))


def _driver_errors() -> tuple[type[Exception], ...]:
    found: list[type[Exception]] = [sqlite3.Error]
    try:
        import psycopg

        found.append(psycopg.Error)
    except ImportError:
        pass
    try:
        import psycopg_pool

        found.append(psycopg_pool.PoolTimeout)
    except ImportError:
        pass
    return tuple(found)


@contextmanager
def checkpoint_errors(doing: str) -> Iterator[None]:
    """Turn a checkpoint database failure (SQLite, Postgres, an exhausted pool) met while ``doing``
    into a ``StoreError``, so callers see ``store_unavailable`` rather than a driver exception (whose
    text goes to ``detail``, for the server log)."""
    try:
        yield
    except _driver_errors() as exc:
        raise StoreError(f"checkpoint store unavailable while {doing}", detail=describe(exc, 500),
                         dependency="checkpoints") from exc


def close_checkpointer(saver: BaseCheckpointSaver[Any]) -> None:
    """Close what ``open_checkpointer`` opened: the SQLite connection or the Postgres pool.

    Safe to call twice; other savers (e.g. ``InMemorySaver``) hold nothing and are left alone.
    """
    if isinstance(saver, SqliteSaver):
        saver.conn.close()
        return
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError:  # the Postgres extras are not installed, so this cannot be a PostgresSaver
        return
    if isinstance(saver, PostgresSaver):
        saver.conn.close()


SQLITE_SETUP_WAIT_S = 10.0
"""How long opening the SQLite checkpoint file waits out another process setting it up."""


def _open_sqlite(settings: Settings) -> SqliteSaver:
    path = settings.checkpoint_path
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False)
    except (OSError, sqlite3.OperationalError) as exc:
        raise home_unusable(f"the checkpoint store {path}", exc, file=path, dependency="checkpoints") from exc
    saver = SqliteSaver(conn)
    deadline = time.monotonic() + SQLITE_SETUP_WAIT_S
    pause = 0.01
    while True:
        try:
            saver.setup()  # idempotent: WAL mode, CREATE TABLE IF NOT EXISTS
            return saver
        except sqlite3.OperationalError as exc:
            # Processes opening a new file at once race to switch it to WAL and create its tables;
            # SQLite refuses the loser at once ("database is locked"), without its busy wait, rather
            # than risk a deadlock. Waiting a moment and trying again is all it needs.
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() + pause > deadline:
                conn.close()
                raise StoreError("checkpoint store unavailable while opening it", detail=describe(exc, 500),
                                 dependency="checkpoints") from exc
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
        except sqlite3.DatabaseError as exc:
            # Not a database (its first page overwritten, truncated): it holds every thread's
            # history, so it is kept for the user to inspect or move, never replaced here.
            conn.close()
            raise StoreError(
                f"the checkpoint store {path} is not a SQLite database (damaged or overwritten): threads "
                "cannot be read or continued; move it aside to start again without them",
                detail=describe(exc, 500), dependency="checkpoints",
            ) from exc


def _open_postgres(url: str, pool_size: int) -> PostgresSaver:
    try:
        import psycopg
        from psycopg import Connection
        from psycopg.conninfo import conninfo_to_dict
        from psycopg.rows import DictRow, dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ConfigError(
            f"checkpoints.url is a Postgres URL but {exc.name} is not installed "
            "(pip install langgraph-checkpoint-postgres 'psycopg[binary]' psycopg-pool)"
        ) from exc

    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        # libpq's message quotes no part of the URL, so it cannot leak the password
        raise ConfigError(f"invalid checkpoints.url: {one_line(exc)}") from exc
    port = str(params.get("port") or "5432")
    if not all(p.isdigit() for p in port.split(",") if p):  # libpq parses the URL but checks the port only at connect
        raise ConfigError(f"invalid checkpoints.url: port {port!r} is not a number")
    where = f"{params.get('host') or 'localhost'}:{port}"
    password = str(params.get("password") or "")

    def unavailable(doing: str, exc: Exception) -> StoreError:
        # Raised at start-up only, to the operator starting the process: the address helps them.
        # (Errors met while serving requests never name it: ``checkpoint_errors``, ``selfrag.locking``.)
        reason = one_line(exc)
        if password:
            reason = reason.replace(password, "***")
        return StoreError(f"checkpoint store unavailable: cannot {doing} Postgres at {where}: {reason}",
                          dependency="checkpoints")

    # The connection settings langgraph-checkpoint-postgres requires: autocommit (its setup runs
    # CREATE INDEX CONCURRENTLY, and each write commits on its own), no server-side prepared
    # statements (they break behind PgBouncer), rows as dicts (its code reads row["..."]).
    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    timeout: dict[str, Any] = {} if "connect_timeout" in params else {"connect_timeout": _CONNECT_TIMEOUT_S}

    # One direct connection first: it fails fast with libpq's own reason (the pool would retry
    # for its whole timeout and then say only "couldn't get a connection"), and it runs setup.
    try:
        conn: Connection[DictRow] = psycopg.connect(url, **kwargs, **timeout)
    except psycopg.Error as exc:
        raise unavailable("connect to", exc) from exc
    try:
        with conn:
            _setup_serialized(conn, where)
    except psycopg.Error as exc:
        raise unavailable("set up checkpoint tables in", exc) from exc

    pool: ConnectionPool[Connection[DictRow]] = _recovering_pool_class()(
        url,
        connection_class=Connection[DictRow],
        kwargs={**kwargs, **timeout},
        min_size=1,
        max_size=pool_size,
        timeout=_CONNECT_TIMEOUT_S,  # waiting for a connection: fail a request, don't hang it
        open=False,  # opened explicitly below, so a failure is ours to report
        check=ConnectionPool.check_connection,  # a restarted Postgres leaves dead connections in the pool
        name="selfrag-checkpoints",
    )
    try:
        pool.open(wait=True, timeout=float(params.get("connect_timeout") or _CONNECT_TIMEOUT_S))
    except psycopg.Error as exc:
        pool.close()
        raise unavailable("open a connection pool to", exc) from exc
    from workflows.fenced_saver import FencedPostgresSaver

    return FencedPostgresSaver(pool)


RECONNECT_EVERY_S = 1.0
"""While Postgres is unreachable the pool tries to reconnect at least this often, so a request
succeeds within about a second of its return, whatever the outage's length."""

DOWN_CHECKOUT_S = 1.0
"""While the pool's last connection attempt failed, a request waits about this long at most for a
connection (then ``store_unavailable``), not the full checkout timeout."""


def _recovering_pool_class() -> type[Any]:
    """psycopg_pool's ``ConnectionPool`` that recovers in seconds and fails fast while down.

    The stock pool backs off exponentially between reconnection attempts (1, 2, 4 … s): after a
    90 s outage the next attempt could be a minute away, and requests kept failing for 25–61 s
    after Postgres was back. Every checkout meanwhile waited the whole 10 s timeout. This subclass
    caps the back-off at ``RECONNECT_EVERY_S`` and, while the last attempt failed, cuts a checkout's
    wait to ``DOWN_CHECKOUT_S``. It overrides two of the pool's internal methods (``_connect``,
    ``_add_connection``), so ``psycopg-pool`` is pinned below its next minor version; the
    recovery test (``tests/resilience/test_checkpoint_recovery.py``) fails if they change.
    """
    from psycopg_pool import ConnectionPool, PoolTimeout
    from psycopg_pool.base import AttemptWithBackoff

    class _CappedAttempt(AttemptWithBackoff):
        INITIAL_DELAY = RECONNECT_EVERY_S / 2

        def update_delay(self, now: float) -> None:
            super().update_delay(now)
            self.delay = min(self.delay, RECONNECT_EVERY_S)

    class RecoveringPool(ConnectionPool):
        _down = False

        def _connect(self, timeout: float | None = None) -> Any:
            try:
                conn = super()._connect(timeout)
            except Exception:
                self._down = True
                raise
            self._down = False
            return conn

        def _add_connection(self, attempt: Any, growing: bool = False) -> None:
            super()._add_connection(attempt or _CappedAttempt(timeout=self.reconnect_timeout), growing)

        def getconn(self, timeout: float | None = None) -> Any:
            # Waited in short slices, so a wait that began before the pool found Postgres gone
            # (a dead connection discarded at checkout) ends at the next slice once it is known
            # down, and never outlives the request's deadline (``selfrag.deadline``).
            ends = time.monotonic() + budget(self.timeout if timeout is None else timeout)
            while True:
                try:
                    return super().getconn(max(0.0, min(ends - time.monotonic(), DOWN_CHECKOUT_S / 2)))
                except PoolTimeout:
                    if self._down or time.monotonic() >= ends:
                        raise

    return RecoveringPool


def _setup_serialized(conn: Connection[DictRow], where: str) -> None:
    """``PostgresSaver.setup()``, one process at a time.

    setup() reads the last applied migration, then runs the rest and records each one; two
    instances starting together would both apply them and the second fails (duplicate key in
    ``checkpoint_migrations``, or a concurrent CREATE TABLE colliding in the catalog). A session
    advisory lock serialises them: the second waits, then finds nothing left to do. It polls with
    ``pg_try_advisory_lock`` rather than blocking in ``pg_advisory_lock``: a session blocked inside
    a statement holds a snapshot, and the CREATE INDEX CONCURRENTLY migrations wait for every older
    snapshot to finish: Postgres then aborts the waiters with "deadlock detected".
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    deadline = time.monotonic() + _SETUP_WAIT_S
    while True:
        row = conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (_SETUP_LOCK_KEY,)).fetchone()
        if row is not None and row["locked"]:
            break
        if time.monotonic() > deadline:
            raise StoreError(
                f"checkpoint store unavailable: another process has been setting up the tables in Postgres "
                f"at {where} for over {_SETUP_WAIT_S:.0f}s", dependency="checkpoints"
            )
        time.sleep(0.05)
    try:
        PostgresSaver(conn).setup()
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_KEY,))
