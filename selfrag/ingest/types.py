"""What loaders produce and what an ingest run reports.

A ``SourceDocument`` is one logical document before splitting: a whole file, or one line of a
jsonl file. Metadata extractors run on it (not on chunks) so that a fact stated once — the
company on a filing's cover page — reaches every chunk cut from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from selfrag.schema import RESERVED_KEYS

__all__ = ["IngestReport", "SkippedFile", "SourceDocument", "reserved_keys_message"]


@dataclass(frozen=True)
class SourceDocument:
    """One document read from a file (or sent to the API), before splitting."""

    text: str
    metadata: Mapping[str, Any]
    """File-level metadata (``source``, ``filename``, ``ext``, maybe ``title``) plus the document's
    own (a jsonl line's ``metadata``); it takes precedence over what extractors find."""
    doc_id: str | None = None
    """The document's identity (see ``selfrag.ingest.loaders``); None falls back to its ``source``."""
    page_starts: tuple[int, ...] = ()
    """For paged formats (PDF): the offset in ``text`` where each page starts, to label chunks."""
    line: int | None = None
    """For jsonl: the 1-based line the document came from, for error messages."""


def reserved_keys_message(metadata: Mapping[str, Any]) -> str | None:
    """Why ``metadata`` (from the input) may not be stored as it is, or None when it may."""
    used = sorted(k for k in metadata if k in RESERVED_KEYS)
    if not used:
        return None
    return (
        f"metadata key(s) {', '.join(map(repr, used))} are reserved: selfrag sets "
        f"{', '.join(sorted(RESERVED_KEYS))} itself (a document's id is its 'id', or its path); rename them"
    )


@dataclass(frozen=True)
class SkippedFile:
    """A file found in a folder that was not ingested, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class IngestReport:
    """What an ingest run did, per document.

    ``removed`` counts documents deleted because they are no longer in a file that was read again
    (an edited jsonl line, a legacy copy under an absolute path) or, with ``prune``, because their
    file is gone from a folder that was read again.
    """

    files: int
    """Files read."""
    chunks: int
    """Chunks of the documents read."""
    added: tuple[str, ...] = ()
    """Ids of documents that were not stored before."""
    replaced: tuple[str, ...] = ()
    """Ids of documents stored before with other content (their old chunks are gone)."""
    unchanged: tuple[str, ...] = ()
    """Ids of documents stored before exactly as read (nothing was embedded for them)."""
    removed: tuple[str, ...] = ()
    """Ids of documents deleted (see above)."""
    embedded: int = 0
    """Chunks embedded and written."""
    skipped: tuple[SkippedFile, ...] = ()
    """Files in folders that could not be read (binary, not text, malformed) and were left out."""
    ignored: tuple[str, ...] = field(default=())
    """Files found while walking directories but not of a supported type."""

    @property
    def documents(self) -> int:
        return len(self.added) + len(self.replaced) + len(self.unchanged)

    def summary(self) -> str:
        """One line for a CLI, e.g. ``2 files, 3 documents (5 chunks): 1 added, 1 replaced, 1 unchanged, 0 removed``."""
        line = (
            f"{_n(self.files, 'file')}, {_n(self.documents, 'document')} ({_n(self.chunks, 'chunk')}): "
            f"{len(self.added)} added, {len(self.replaced)} replaced, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed"
        )
        notes = []
        if self.skipped:
            notes.append(f"{_n(len(self.skipped), 'unreadable file')} skipped")
        if self.ignored:
            notes.append(f"{_n(len(self.ignored), 'unsupported file')} ignored")
        return line + (f" ({'; '.join(notes)})" if notes else "")


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
