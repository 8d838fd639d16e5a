"""What loaders produce and what an ingest run reports.

A ``SourceDocument`` is one logical document before splitting: a whole file, or one line of a
jsonl file. Metadata extractors run on it (not on chunks) so that a fact stated once — the
company on a filing's cover page — reaches every chunk cut from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["IngestReport", "SourceDocument"]


@dataclass(frozen=True)
class SourceDocument:
    """One document read from a file, before splitting."""

    text: str
    metadata: Mapping[str, Any]
    """File-level metadata (``source``, ``filename``, ``ext``, maybe ``title``) plus the document's
    own (a jsonl line's ``metadata``); it takes precedence over what extractors find."""
    doc_id: str | None = None
    """An id the input gave the document (jsonl ``id``); chunk ids derive from it when present."""
    page_starts: tuple[int, ...] = ()
    """For paged formats (PDF): the offset in ``text`` where each page starts, to label chunks."""
    line: int | None = None
    """For jsonl: the 1-based line the document came from, for error messages."""


@dataclass(frozen=True)
class IngestReport:
    """What an ``ingest_paths`` run did."""

    files: int
    """Files read."""
    chunks: int
    """Distinct chunks produced from them."""
    added: int
    """Chunks that were not stored before."""
    skipped: int
    """Chunks already stored (re-ingesting the same files adds nothing)."""
    ignored: tuple[str, ...] = field(default=())
    """Files found while walking directories but not of a supported type."""

    def summary(self) -> str:
        """One line for a CLI, e.g. ``8 files, 19 chunks: 19 added, 0 already stored``."""
        line = (
            f"{self.files} file{'s' if self.files != 1 else ''}, {self.chunks} chunk{'s' if self.chunks != 1 else ''}: "
            f"{self.added} added, {self.skipped} already stored"
        )
        if self.ignored:
            line += f" ({len(self.ignored)} unsupported file{'s' if len(self.ignored) != 1 else ''} ignored)"
        return line
