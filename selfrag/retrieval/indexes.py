"""One lexical index per collection: persisted under the data directory, kept in step by chunk version.

Why this design (and not an index written only at ingest, or rebuilt on every question):

- **The collection is the truth.** Each indexed chunk keeps the version its collection gives it
  (its document's fingerprint ``doc_hash``, else a hash of its text). ``sync_index`` lists the
  collection's ids and versions (metadata only, no vectors, no text) and re-reads the text of just
  the chunks that are new or whose version changed, and drops the ones gone. Replace and delete
  are exact whoever wrote them: this process's ingest, a CLI ingest, another API instance sharing a
  Chroma server.
- **Ingest pays, questions do not.** A writer calls ``refresh`` after its write (a sync, then the
  file is saved); a question uses the index in memory, loading the file and syncing only on a
  collection's first question in the process, and again once it is older than ``max_age_s`` (what
  bounds how long another process's write can stay lexically invisible; the dense side sees it at
  once, and the text of every hit is read back from the collection anyway).
- **A lost or foreign file costs one rebuild, never a wrong answer.** The file is a cache: unreadable,
  of another format or another tokeniser version, it is ignored and the sync re-indexes everything.
  It is written atomically (temporary file, then rename), so a crash mid-write leaves the old one.

Files: ``<root>/<collection>.json.gz`` (``root`` is ``<SELFRAG_HOME>/lexical``). ``forget`` removes
one when its collection is deleted.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from selfrag.errors import StoreError, describe
from selfrag.retrieval.lexical import Bm25Params, LexicalEntry, LexicalIndex
from selfrag.retrieval.source import ChunkSource
from selfrag.retrieval.terms import TERMS_VERSION, lexical_terms

__all__ = ["FORMAT", "LexicalIndexes", "SyncReport", "load_index", "save_index", "sync_index"]

FORMAT = 1
"""Version of the file layout; a file of another format is ignored (and rebuilt)."""

_READ_BATCH = 1000
"""Chunks whose text is read from the collection per request while syncing."""


class SyncReport(NamedTuple):
    """What one ``sync_index`` changed."""

    added: int
    replaced: int
    removed: int

    @property
    def changed(self) -> bool:
        return bool(self.added or self.replaced or self.removed)


def sync_index(index: LexicalIndex, source: ChunkSource) -> SyncReport:
    """Bring ``index`` in step with ``source``: new and changed chunks (re)indexed, removed ones dropped."""
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
    return SyncReport(added, len(stale) - added, len(gone))


def save_index(index: LexicalIndex, path: Path) -> None:
    """Write ``index`` to ``path`` atomically.

    Raises:
        StoreError: the file cannot be written.
    """
    body = {
        "format": FORMAT,
        "terms_version": TERMS_VERSION,
        "entries": [[e.id, e.version, " ".join(e.terms)] for e in index.entries()],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=3) as out:
                out.write(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StoreError(f"cannot save the lexical index of {path.stem!r}", detail=describe(exc)) from exc


def load_index(path: Path, *, params: Bm25Params = Bm25Params()) -> LexicalIndex | None:
    """The index saved at ``path``; None when there is none or it cannot be used (then rebuild)."""
    try:
        with gzip.open(path, "rb") as fh:
            body = json.loads(fh.read())
        if body.get("format") != FORMAT or body.get("terms_version") != TERMS_VERSION:
            return None
        entries = [LexicalEntry(str(i), str(v), tuple(str(t).split())) for i, v, t in body["entries"]]
    except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return LexicalIndex(entries, params=params)


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.index: LexicalIndex | None = None
        self.synced_at = float("-inf")


class LexicalIndexes:
    """The lexical indexes of one store's collections, by collection name; thread-safe.

    Args:
        root: Directory of the index files (``<SELFRAG_HOME>/lexical``); None keeps them in memory only.
        max_age_s: A question re-syncs an index last synced longer ago than this; None never does
            (only ``refresh`` does: right when every write goes through this process).
        params: BM25's parameters for every index.
        clock: Monotonic seconds (tests inject one).
    """

    def __init__(
        self,
        root: Path | None,
        *,
        max_age_s: float | None = 60.0,
        params: Bm25Params = Bm25Params(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.max_age_s = max_age_s
        self.params = params
        self._clock = clock
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Path | None:
        return None if self.root is None else self.root / f"{name}.json.gz"

    def get(self, source: ChunkSource) -> LexicalIndex:
        """The index of ``source``, loaded and synced on first use, re-synced when older than ``max_age_s``."""
        slot = self._slot(source.name)
        with slot.lock:
            index = slot.index
            due = self.max_age_s is not None and self._clock() - slot.synced_at > self.max_age_s
            if index is None or due:
                index = self._sync(slot, source)
            return index

    def refresh(self, source: ChunkSource) -> SyncReport:
        """Sync now (after a write to ``source``) and save the file if anything changed."""
        slot = self._slot(source.name)
        with slot.lock:
            before = slot.index
            index = before or self._load(source.name)
            report = sync_index(index, source)
            self._keep(slot, source.name, index, save=report.changed or before is None)
            return report

    def forget(self, name: str) -> None:
        """Drop the index of a deleted collection, in memory and on disk."""
        with self._lock:
            self._slots.pop(name, None)
        path = self.path(name)
        if path is not None:
            path.unlink(missing_ok=True)

    def _slot(self, name: str) -> _Slot:
        with self._lock:
            return self._slots.setdefault(name, _Slot())

    def _load(self, name: str) -> LexicalIndex:
        path = self.path(name)
        loaded = load_index(path, params=self.params) if path is not None else None
        return loaded if loaded is not None else LexicalIndex(params=self.params)

    def _sync(self, slot: _Slot, source: ChunkSource) -> LexicalIndex:
        index = slot.index or self._load(source.name)
        report = sync_index(index, source)
        self._keep(slot, source.name, index, save=report.changed)
        return index

    def _keep(self, slot: _Slot, name: str, index: LexicalIndex, *, save: bool) -> None:
        slot.index = index
        slot.synced_at = self._clock()
        path = self.path(name)
        if save and path is not None:
            save_index(index, path)
