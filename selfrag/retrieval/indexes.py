"""One lexical index per collection, on disk, kept in step with the collection's change log.

Why this design (and not an index rebuilt after every write, or synced by listing the collection):

- **The collection is the truth, and it says what changed.** Every write through ``Collection``
  appends the chunk ids it wrote and deleted to the collection's change log, in its Chroma
  metadata (``selfrag.store.changes``). An index records how far into that log it has applied
  (its *mark*). Catching up reads the log (one small request), re-reads the text of just the
  chunks written since, and drops the ones deleted: the cost of the write, not of the collection.
  That holds whoever wrote: this process, a CLI ingest, another ``selfrag serve`` instance with
  its own data directory sharing a Chroma server.
- **A question checks, cheaply.** A question catches up first when the index last checked more
  than ``max_age_s`` ago (1 s by default: another instance's ingest is found within about a second
  of its write). A writer calls ``refresh`` right after its write, so its own questions see it at once.
- **Nothing is loaded or rebuilt to answer.** The index is an SQLite FTS5 file
  (``selfrag.retrieval.lexical``): opening it reads no postings, and the first question in a
  fresh process costs a query, not the collection.
- **A lost or foreign file costs one reconcile, never a wrong answer.** A new file, one of another
  format or terms version, or a mark the log no longer holds (the index sat idle through more
  than ``MAX_IDS`` changed chunks) is reconciled with the whole collection once (``sync_index``:
  list ids and versions, re-read the text of only the chunks that differ). And hits are always read
  back from the collection, so a chunk deleted before the index caught up is never returned.

Files: ``<root>/<collection>.sqlite3`` (``root`` is ``<SELFRAG_HOME>/lexical``); an index of the
previous format (``<collection>.json.gz``, every chunk's terms) is imported once, its terms kept,
then reconciled and removed. ``forget`` removes the files when their collection is deleted.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from selfrag.home import home_unusable
from selfrag.retrieval.lexical import LexicalEntry, LexicalIndex
from selfrag.retrieval.terms import TERMS_VERSION, lexical_terms
from selfrag.store import ChangeEntry
from selfrag.store.source import ChunkSource, chunk_version

__all__ = ["LexicalIndexes", "SyncReport", "catch_up", "sync_index"]

_READ_BATCH = 1000
"""Chunks whose text is read from the collection per request while syncing."""

_SUFFIXES = (".sqlite3", ".sqlite3-wal", ".sqlite3-shm", ".json.gz")


class SyncReport(NamedTuple):
    """What one sync or catch-up changed."""

    added: int
    replaced: int
    removed: int

    @property
    def changed(self) -> bool:
        return bool(self.added or self.replaced or self.removed)


def sync_index(index: LexicalIndex, source: ChunkSource) -> SyncReport:
    """Reconcile ``index`` with the whole of ``source``: new and changed chunks (re)indexed, removed
    ones dropped, and the index marked at the log's head as read *before* the listing (a write
    landing meanwhile is applied again by the next catch-up: applying is idempotent)."""
    head = source.changes().head
    current = source.versions()
    indexed = index.versions()
    stale = [i for i, v in current.items() if indexed.get(i) != v]
    gone = [i for i in indexed if i not in current]
    added = sum(1 for i in stale if i not in indexed)
    index.delete(gone)
    for start in range(0, len(stale), _READ_BATCH):
        part = stale[start : start + _READ_BATCH]
        index.upsert(
            LexicalEntry(c.id, current[c.id], tuple(lexical_terms(c.text))) for c in source.read(part) if c.id in current
        )
    index.set_mark(head)
    return SyncReport(added, len(stale) - added, len(gone))


def catch_up(index: LexicalIndex, source: ChunkSource) -> SyncReport:
    """Apply the writes logged since ``index``'s mark; reconcile whole when they cannot be known."""
    log = source.changes()
    if not index.built:
        return sync_index(index, source)
    entries = log.since(index.mark)
    if entries is None or not all(e.complete for e in entries):
        return sync_index(index, source)
    if not entries:
        return SyncReport(0, 0, 0)
    report = _apply(index, source, entries)
    index.set_mark(entries[-1].mark)
    return report


def _apply(index: LexicalIndex, source: ChunkSource, entries: list[ChangeEntry]) -> SyncReport:
    """Index the chunks the entries wrote (as stored now) and drop those they deleted."""
    last: dict[str, bool] = {}  # chunk id → written (True) or deleted (False) by the latest entry
    for entry in entries:
        last.update((i, False) for i in entry.deleted)
        last.update((i, True) for i in entry.written)
    written = [i for i, w in last.items() if w]
    indexed = {i for i in last if i in index}
    found: set[str] = set()
    for start in range(0, len(written), _READ_BATCH):
        chunks = source.read(written[start : start + _READ_BATCH])
        found.update(c.id for c in chunks)
        index.upsert(LexicalEntry(c.id, chunk_version(c), tuple(lexical_terms(c.text))) for c in chunks)
    # Deleted, or written and deleted again by a write the log does not hold yet.
    removed = index.delete(i for i in last if i not in found)
    added = sum(1 for i in found if i not in indexed)
    return SyncReport(added, len(found) - added, removed)


def _import_previous(index: LexicalIndex, path: Path) -> None:
    """Import an index of the previous format (gzip JSON of every chunk's terms): its terms are
    kept, so the reconcile that follows re-reads only what changed since it was written."""
    try:
        with gzip.open(path, "rb") as fh:
            body = json.loads(fh.read())
        if body.get("format") == 1 and body.get("terms_version") == TERMS_VERSION:
            index.upsert(LexicalEntry(str(i), str(v), tuple(str(t).split())) for i, v, t in body["entries"])
    except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError):
        pass  # unusable: the reconcile indexes everything


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.index: LexicalIndex | None = None
        self.checked_at = float("-inf")


class LexicalIndexes:
    """The lexical indexes of one store's collections, by collection name; thread-safe.

    Args:
        root: Directory of the index files (``<SELFRAG_HOME>/lexical``); None keeps them in
            temporary files, removed on ``close``.
        max_age_s: A question first catches up an index that last checked the change log longer
            ago than this; None never does (only ``refresh`` does: right when every write goes
            through this process).
        clock: Monotonic seconds (tests inject one).
    """

    def __init__(
        self, root: Path | None, *, max_age_s: float | None = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.root = root
        self.max_age_s = max_age_s
        self._clock = clock
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Path | None:
        return None if self.root is None else self.root / f"{name}.sqlite3"

    def get(self, source: ChunkSource) -> LexicalIndex:
        """The index of ``source``: opened on first use (nothing read), caught up when due."""
        slot = self._slot(source.name)
        with slot.lock:
            index = self._open(slot, source.name)
            due = self.max_age_s is not None and self._clock() - slot.checked_at > self.max_age_s
            if due or not index.built:
                catch_up(index, source)
                slot.checked_at = self._clock()
            return index

    def refresh(self, source: ChunkSource) -> SyncReport:
        """Catch up now (after a write to ``source``)."""
        slot = self._slot(source.name)
        with slot.lock:
            index = self._open(slot, source.name)
            report = catch_up(index, source)
            slot.checked_at = self._clock()
            return report

    def forget(self, name: str) -> None:
        """Drop the index of a deleted collection: closed, its files removed."""
        with self._lock:
            slot = self._slots.pop(name, None)
        if slot is not None and slot.index is not None:
            slot.index.close()
        if self.root is not None:
            for suffix in _SUFFIXES:
                (self.root / f"{name}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Close every open index (their files stay)."""
        with self._lock:
            slots, self._slots = list(self._slots.values()), {}
        for slot in slots:
            if slot.index is not None:
                slot.index.close()

    def _slot(self, name: str) -> _Slot:
        with self._lock:
            return self._slots.setdefault(name, _Slot())

    def _open(self, slot: _Slot, name: str) -> LexicalIndex:
        """The slot's index, opened now if it is not yet.

        Raises:
            StoreError: the file, or the folder it is in, cannot be read or written (a file that
                cannot be opened is kept: only one that is no index is removed and rebuilt).
        """
        if slot.index is None:
            path = self.path(name)
            previous = self.root / f"{name}.json.gz" if self.root is not None else None
            try:
                slot.index = self._open_file(path, name)
                if previous is not None and previous.exists():
                    if not slot.index.built and len(slot.index) == 0:
                        _import_previous(slot.index, previous)
                    previous.unlink(missing_ok=True)
            except (OSError, sqlite3.OperationalError) as exc:
                if slot.index is not None:
                    slot.index.close()
                    slot.index = None
                raise home_unusable(f"the lexical index {path or 'file'}", exc, file=path) from exc
        return slot.index

    @staticmethod
    def _open_file(path: Path | None, name: str) -> LexicalIndex:
        try:
            return LexicalIndex(path)
        except sqlite3.OperationalError:
            # It could not be opened or written (permissions, a read-only or full disk): not the
            # file's fault, so it is kept and the caller says why.
            raise
        except sqlite3.DatabaseError:  # not an index file (truncated, overwritten): it is only a cache
            assert path is not None  # a temporary one is always new
            for suffix in _SUFFIXES[:3]:
                path.with_name(f"{name}{suffix}").unlink(missing_ok=True)
            return LexicalIndex(path)
