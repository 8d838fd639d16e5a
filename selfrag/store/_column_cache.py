"""Per-process column caches of embedded Chroma collections, exact by Chroma's own write counter.

A filtered search resolves its filter from :class:`~selfrag.store._columns.Columns` instead of
asking Chroma's SQLite to group every metadata row (``_columns`` says why). A cache must never
answer for a collection that changed since it was read, whoever changed it (this process, another
``Collection`` object, another process on the same files), so it is keyed by the collection's
*metadata segment* and stamped with that segment's ``max_seq_id``: the embedded Chroma raises it
in the same SQLite transaction that applies any add, upsert, update or delete to the segment, and
never lowers it. Reading that one row costs tens of microseconds; a search uses the cache only if
the stamp equals the current value, read before the filter is evaluated and again after the hits
are read (see ``Collection._filtered_search``).

The cache is built from the same SQLite file, read-only, a page of records at a time (Chroma keeps
it in rollback-journal mode, where a reader holds off writers for as long as one statement runs, so
no statement runs long), between two readings of the counter: if they differ, a write landed during
the read and the snapshot is discarded. It is built off the caller's thread: a stale or missing
cache sends the search to Chroma, which is always right, while one background thread rebuilds it.
Only the embedded client has such a file; a Chroma server has no cheap change signal, so
collections there are always asked directly.

A write through this process does not send the cache back to a whole read: ``Collection`` wraps
each of its Chroma writes in :meth:`ColumnCache.writing`, which notes where the touched records
sit before the write and reads back only those records after it, then edits the columns (a copy
of each column, no re-read; ~3.6 s at 200,000 chunks before). That is exact because writes are
serialised around it: the embedded store admits one writing process (``selfrag.store.lock``) and
this process's writes to one collection hold the cache's write lock, so the counter cannot move
for anything but this write between the two readings that bracket it. Anything else (a write
that failed half-way, a snapshot that was not current before the write) falls back to the
background rebuild.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from chromadb.api.models.Collection import Collection as ChromaCollection

from selfrag.store._columns import Columns, Row

__all__ = ["ColumnCache", "Snapshot", "column_cache"]

_CACHES = 8
"""Collections whose columns one process keeps (least recently used dropped first)."""


class Snapshot(NamedTuple):
    """A collection's columns as of one value of its write counter."""

    columns: Columns
    stamp: int
    offsets: np.ndarray
    """Chroma's record id (its ``embeddings.id``) of each position, ascending: Chroma's order."""


class ColumnCache:
    """The columns of one embedded collection, rebuilt in the background when it changes."""

    def __init__(self, db: Path, collection_id: str) -> None:
        self._db = db
        self._collection_id = collection_id
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._segment: str | None = None
        self._snapshot: Snapshot | None = None
        self._building = False
        self._writing = threading.Lock()
        self.builds = 0
        """How many snapshots were built (tests and the bench look)."""
        self.follows = 0
        """How many writes the snapshot followed without a rebuild (tests and the bench look)."""

    def stamp(self) -> int | None:
        """The collection's write counter now (None: cannot be read, so nothing may be cached)."""
        try:
            with self._lock:
                conn, segment = self._connect()
                row = conn.execute("SELECT seq_id FROM max_seq_id WHERE segment_id = ?", (segment,)).fetchone()
            return int(row[0]) if row is not None else 0
        except (sqlite3.Error, LookupError, TypeError, ValueError):  # not the schema this was written for
            return None

    def fresh(self) -> Snapshot | None:
        """The snapshot if it is current; otherwise None, and a rebuild is started if none runs."""
        stamp = self.stamp()
        if stamp is None:
            return None
        snapshot = self._snapshot
        if snapshot is not None and snapshot.stamp == stamp:
            return snapshot
        self._start_build()
        return None

    def build(self) -> Snapshot | None:
        """Read the collection's columns now (in the caller's thread); None if a write landed meanwhile
        or they could not be read."""
        try:
            before = self.stamp()
            with self._lock:
                _, segment = self._connect()
            # Its own connection: searches keep reading the stamp (under the lock) while this runs.
            conn = self._open()
            try:
                records, scalars, arrays = _read(conn, segment)
            finally:
                conn.close()
            after = self.stamp()
        except (sqlite3.Error, LookupError, TypeError, ValueError):
            return None
        if before is None or before != after:
            return None
        offsets = np.fromiter((offset for offset, _ in records), dtype=np.int64, count=len(records))
        snapshot = Snapshot(Columns([user_id for _, user_id in records], scalars, arrays), before, offsets)
        self._snapshot = snapshot
        self.builds += 1
        return snapshot

    @contextmanager
    def writing(self, ids: Sequence[str]) -> Iterator[None]:
        """Around one Chroma write of ``ids`` (added, replaced or deleted) by this process: a
        snapshot current before it follows it, reading back only those records."""
        with self._writing:
            snapshot = self._snapshot
            before: tuple[Snapshot, np.ndarray] | None = None
            try:
                if snapshot is not None and ids and self.stamp() == snapshot.stamp:
                    _, segment = self._connect_locked()
                    before = (snapshot, np.array([o for o, _ in self._records(segment, ids)], dtype=np.int64))
            except (sqlite3.Error, LookupError, TypeError, ValueError):
                before = None
            yield
            if before is not None:
                self._follow(*before, ids)

    def _follow(self, snapshot: Snapshot, old: np.ndarray, ids: Sequence[str]) -> None:
        """Edit ``snapshot`` for a write of ``ids`` (whose records sat at offsets ``old`` before it)."""
        try:
            after = self.stamp()
            _, segment = self._connect_locked()
            conn = self._open()
            try:
                records = sorted(self._records(segment, ids, conn))
                position = {offset: n for n, (offset, _) in enumerate(records)}
                offsets = list(position)
                scalars = _rows_of(conn, "embedding_metadata", offsets, position)
                arrays = _rows_of(conn, "embedding_metadata_array", offsets, position) if _has_table(conn, "embedding_metadata_array") else []
            finally:
                conn.close()
            if after is None or self.stamp() != after:
                return
        except (sqlite3.Error, LookupError, TypeError, ValueError):
            return
        where = np.searchsorted(snapshot.offsets, old)
        found = where < len(snapshot.offsets)
        found[found] = snapshot.offsets[where[found]] == old[found]
        remove = where[found]
        kept = np.delete(snapshot.offsets, remove)
        new_offsets = np.array([o for o, _ in records], dtype=np.int64)
        at = np.searchsorted(kept, new_offsets)
        columns = snapshot.columns.edited(remove, Columns([u for _, u in records], scalars, arrays), at)
        merged = np.insert(kept, at, new_offsets)
        if self._snapshot is snapshot:  # not replaced by a rebuild meanwhile
            self._snapshot = Snapshot(columns, after, merged)
            self.follows += 1

    def ids_with(self, key: str, values: Sequence[str]) -> list[str] | None:
        """Ids of the chunks whose string metadata ``key`` is one of ``values``, read through the
        SQLite index on (key, value); None when the file cannot be read (ask Chroma instead).

        Why not Chroma's ``get(where=...)``: the embedded Chroma evaluates a metadata filter against
        every record of the collection (22 ms at 200,000 chunks, ~0.1 s at 1M, measured by
        ``bench/write_split.py``), which made looking up one document's stored chunks, twice per
        ``write_documents``, the part of a one-document write that grew with the collection. The
        index answers in well under a millisecond at any size. The metadata segment is written in
        the same transaction as the write, so this reads what Chroma would."""
        out: list[str] = []
        unique = list(dict.fromkeys(values))
        try:
            for start in range(0, len(unique), _IN):
                part = unique[start : start + _IN]
                sql = (
                    "SELECT e.embedding_id FROM embedding_metadata AS m JOIN embeddings AS e ON e.id = m.id "  # noqa: S608
                    f"WHERE m.key = ? AND m.string_value IN ({','.join('?' * len(part))}) AND e.segment_id = ?"
                )
                with self._lock:
                    conn, segment = self._connect()
                    rows = conn.execute(sql, (key, *part, segment)).fetchall()
                out += [str(r[0]) for r in rows]
        except (sqlite3.Error, LookupError, TypeError, ValueError):  # not the schema this was written for
            return None
        return out

    def holds(self, key: str, values: Sequence[str]) -> bool | None:
        """Whether any chunk's string metadata ``key`` is one of ``values``, through the same index as
        ``ids_with`` (one row read, whatever the collection's size); None when the file cannot be read."""
        unique = list(dict.fromkeys(values))[:_IN]
        if not unique:
            return False
        sql = (
            "SELECT 1 FROM embedding_metadata AS m JOIN embeddings AS e ON e.id = m.id "  # noqa: S608
            f"WHERE m.key = ? AND m.string_value IN ({','.join('?' * len(unique))}) AND e.segment_id = ? LIMIT 1"
        )
        try:
            with self._lock:
                conn, segment = self._connect()
                return conn.execute(sql, (key, *unique, segment)).fetchone() is not None
        except (sqlite3.Error, LookupError, TypeError, ValueError):  # not the schema this was written for
            return None

    def _records(self, segment: str, ids: Sequence[str], conn: sqlite3.Connection | None = None) -> list[tuple[int, str]]:
        """(offset id, user id) of those of ``ids`` stored now."""
        out: list[tuple[int, str]] = []
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), _IN):
            part = unique[start : start + _IN]
            sql = f"SELECT id, embedding_id FROM embeddings WHERE segment_id = ? AND embedding_id IN ({','.join('?' * len(part))})"  # noqa: S608
            if conn is None:
                with self._lock:
                    rows = self._connect()[0].execute(sql, (segment, *part)).fetchall()
            else:
                rows = conn.execute(sql, (segment, *part)).fetchall()
            out += [(int(o), str(u)) for o, u in rows]
        return out

    def _connect_locked(self) -> tuple[sqlite3.Connection, str]:
        with self._lock:
            return self._connect()

    def _start_build(self) -> None:
        with self._lock:
            if self._building:
                return
            self._building = True

        def run() -> None:
            try:
                self.build()
            finally:
                with self._lock:
                    self._building = False

        threading.Thread(target=run, name=f"selfrag-columns-{self._collection_id[:8]}", daemon=True).start()

    def wait(self) -> None:
        """Block until no rebuild runs (tests and the bench, to time the cached path)."""
        while True:
            with self._lock:
                if not self._building:
                    return
            threading.Event().wait(0.01)

    def _open(self) -> sqlite3.Connection:
        return sqlite3.connect(f"{self._db.as_uri()}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)

    def _connect(self) -> tuple[sqlite3.Connection, str]:
        """The read-only connection and the metadata segment's id (LookupError: not usable)."""
        if self._conn is None:
            conn = self._open()
            row = conn.execute(
                "SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (self._collection_id,)
            ).fetchone()
            if row is None:
                conn.close()
                raise LookupError("no metadata segment")
            self._conn, self._segment = conn, str(row[0])
            weakref.finalize(self, conn.close)  # closed with the cache (Python 3.13 warns otherwise)
        assert self._segment is not None
        return self._conn, self._segment


def _read(conn: sqlite3.Connection, segment: str) -> tuple[list[tuple[int, str]], list[Row], list[Row]]:
    """The segment's records (offset id, user id) in Chroma's order, and their metadata rows, a page
    of records per statement."""
    arrays_table = _has_table(conn, "embedding_metadata_array")
    records: list[tuple[int, str]] = []
    scalars: list[Row] = []
    arrays: list[Row] = []
    last = -1
    while True:
        page = conn.execute(
            "SELECT id, embedding_id FROM embeddings WHERE segment_id = ? AND id > ? ORDER BY id LIMIT ?",
            (segment, last, _PAGE),
        ).fetchall()
        if not page:
            break
        start = len(records)
        records += [(int(offset), str(user_id)) for offset, user_id in page]
        position = {offset: start + i for i, (offset, _) in enumerate(page)}
        first, last = int(page[0][0]), int(page[-1][0])
        scalars += _rows(conn, "embedding_metadata", first, last, position)
        if arrays_table:
            arrays += _rows(conn, "embedding_metadata_array", first, last, position)
        if len(page) < _PAGE:
            break
    return records, scalars, arrays


_PAGE = 5000
"""Records per statement while building (each statement holds SQLite's shared lock while it runs)."""


def _rows(conn: sqlite3.Connection, table: str, first: int, last: int, position: dict[int, int]) -> list[Row]:
    """Metadata rows of ``table`` for records ``first``..``last`` of the page (``position``: offset id →
    place); Chroma's own keys (the document) left out."""
    cursor = conn.execute(
        f"SELECT id, key, string_value, int_value, float_value, bool_value FROM {table} "  # noqa: S608 (table is ours)
        "WHERE id BETWEEN ? AND ? AND key NOT LIKE 'chroma:%'",
        (first, last),
    )
    return [(position[r[0]], r[1], r[2], r[3], r[4], r[5]) for r in cursor if r[0] in position]


_IN = 500
"""Ids per ``IN (...)`` while following a write (SQLite caps the variables of one statement)."""


def _rows_of(conn: sqlite3.Connection, table: str, offsets: list[int], position: dict[int, int]) -> list[Row]:
    """Metadata rows of ``table`` for the records at ``offsets`` (``position``: offset → place)."""
    out: list[Row] = []
    for start in range(0, len(offsets), _IN):
        part = offsets[start : start + _IN]
        cursor = conn.execute(
            f"SELECT id, key, string_value, int_value, float_value, bool_value FROM {table} "  # noqa: S608 (table is ours)
            f"WHERE id IN ({','.join('?' * len(part))}) AND key NOT LIKE 'chroma:%'",
            part,
        )
        out += [(position[r[0]], r[1], r[2], r[3], r[4], r[5]) for r in cursor]
    return out


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


_REGISTRY: OrderedDict[tuple[Path, str], ColumnCache] = OrderedDict()
_REGISTRY_LOCK = threading.Lock()


def column_cache(chroma: ChromaCollection) -> ColumnCache | None:
    """The process's cache for this collection, or None when it is not an embedded, persisted one."""
    db = _database(chroma)
    if db is None:
        return None
    key = (db, str(chroma.id))
    with _REGISTRY_LOCK:
        cache = _REGISTRY.get(key)
        if cache is None:
            cache = _REGISTRY[key] = ColumnCache(db, str(chroma.id))
            while len(_REGISTRY) > _CACHES:
                _REGISTRY.popitem(last=False)
        _REGISTRY.move_to_end(key)
        return cache


def _database(chroma: ChromaCollection) -> Path | None:
    """The SQLite file of an embedded, persisted client (a server's or an in-memory one has none)."""
    client: Any = getattr(chroma, "_client", None)
    try:
        settings = client.get_settings()
    except AttributeError:
        return None
    if not getattr(settings, "is_persistent", False) or "fastapi" in str(getattr(settings, "chroma_api_impl", "")).lower():
        return None
    path = Path(str(settings.persist_directory)) / "chroma.sqlite3"
    return path.resolve() if path.exists() else None
