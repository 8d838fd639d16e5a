"""The recent writes of a collection, kept in its own Chroma metadata, so any reader can catch up.

Why in the collection's metadata: it is the one place every selfrag process sees, whether the
collections live in an embedded Chroma under one data directory or on a Chroma server shared by
several ``selfrag serve`` instances, each with its own data directory. Reading it is one small
request (~0.2 ms embedded), so a lexical index can compare its own mark with the log's head on
every question (at most once a second) and apply just the chunks written or deleted since,
instead of listing the whole collection.

Every write through ``Collection`` (``write_documents``, ``add``, ``delete``) appends one entry:
the chunk ids it wrote and deleted. The log keeps the most recent ``MAX_IDS`` ids; a reader whose
mark fell out of it (idle through a large ingest), or whose mark is not in it (two writers raced,
the log was edited by hand), reconciles with the whole collection once: never a wrong answer,
only a slower catch-up.

An entry is identified by its sequence number *and* a random token: a sequence number alone
could be reused by a writer that saved the metadata over another's (the log is read back just
before each append, but Chroma has no compare-and-set), and a reader would then skip changes it
never saw.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = ["CHANGES_KEY", "MAX_IDS", "START", "ChangeEntry", "ChangeLog", "ChangeMark"]

CHANGES_KEY = "selfrag:changes"
"""Key of the log in the collection's metadata (a JSON string)."""

MAX_IDS = 5000
"""Chunk ids the log keeps (oldest entries dropped first); an entry with more lists none (see
``ChangeEntry.complete``). ~150 KB of metadata at most: a reader parses it only when its head moved."""


class ChangeMark(NamedTuple):
    """A position in a collection's change log: what a reader has applied up to."""

    seq: int
    """0: before the first entry ever written."""
    token: str


START = ChangeMark(0, "")


class ChangeEntry(NamedTuple):
    """One write: the chunks it wrote (added or replaced) and deleted."""

    seq: int
    token: str
    written: tuple[str, ...]
    deleted: tuple[str, ...]
    complete: bool
    """False when the write touched more than ``MAX_IDS`` chunks and they were not listed: a reader
    reaching this entry reconciles with the whole collection."""

    @property
    def mark(self) -> ChangeMark:
        return ChangeMark(self.seq, self.token)


class ChangeLog(NamedTuple):
    """The recent entries of one collection's log, oldest first."""

    entries: tuple[ChangeEntry, ...] = ()

    @property
    def head(self) -> ChangeMark:
        """The mark of the last entry (``START`` when none was ever written)."""
        return self.entries[-1].mark if self.entries else START

    def since(self, mark: ChangeMark) -> list[ChangeEntry] | None:
        """The entries after ``mark``, or None when they cannot be known (reconcile instead)."""
        if mark == self.head:
            return []
        if mark == START:
            return list(self.entries) if self.entries and self.entries[0].seq == 1 else None
        for n, entry in enumerate(self.entries):
            if entry.mark == mark:
                return list(self.entries[n + 1 :])
        return None

    def appended(self, written: Iterable[str], deleted: Iterable[str]) -> ChangeLog:
        """The log with one more entry (oldest dropped beyond ``MAX_IDS`` ids)."""
        w, d = tuple(dict.fromkeys(written)), tuple(dict.fromkeys(deleted))
        complete = len(w) + len(d) <= MAX_IDS
        entry = ChangeEntry(
            self.head.seq + 1, secrets.token_hex(6), w if complete else (), d if complete else (), complete
        )
        kept = [*self.entries, entry]
        while len(kept) > 1 and sum(len(e.written) + len(e.deleted) for e in kept) > MAX_IDS:
            kept.pop(0)
        return ChangeLog(tuple(kept))

    def encode(self) -> str:
        return json.dumps(
            {"v": 1, "e": [[e.seq, e.token, list(e.written), list(e.deleted), e.complete] for e in self.entries]},
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: object) -> ChangeLog:
        """The log stored as ``raw``; an absent or unreadable one is empty (readers then reconcile
        once, as ``since`` cannot place their mark)."""
        if not isinstance(raw, str):
            return cls()
        try:
            body: Any = json.loads(raw)
            return cls(tuple(
                ChangeEntry(int(s), str(t), tuple(map(str, w)), tuple(map(str, d)), bool(c))
                for s, t, w, d, c in body["e"]
            ))
        except (ValueError, TypeError, KeyError):
            return cls()

    @classmethod
    def of(cls, metadata: Mapping[str, Any] | None) -> ChangeLog:
        """The log in a collection's metadata."""
        return cls.decode((metadata or {}).get(CHANGES_KEY))
