"""The values that cross the store boundary, and the one seam the workflow retrieves through.

``Chunk`` goes in, ``Hit`` comes out. Both are frozen so a retrieved hit can be shared between
graph nodes (grading runs concurrently) without anyone mutating another node's view of it.
``SearchableCollection`` and ``CollectionSource`` are Protocols because the workflow must not
care whether hits come from Chroma, a scripted fake, or a future hybrid retriever.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from selfrag.schema import CollectionSchema
    from selfrag.store.source import ChunkSource

__all__ = [
    "Chunk",
    "DocumentPlan",
    "DocumentVersion",
    "DocumentsWritten",
    "Hit",
    "MetadataValue",
    "CollectionSource",
    "ProgressCallback",
    "SearchableCollection",
    "StoredDocument",
    "WritableCollection",
]

MetadataValue = str | int | float | bool | list[str]
"""What Chroma accepts as a metadata value (we never store ``None`` or containers)."""

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each stored batch; lets a CLI draw a bar."""


@dataclass(frozen=True)
class Chunk:
    """One piece of text to store, with the metadata it will be filtered on."""

    id: str
    """Stable identifier; ingest names a document's chunks ``<doc id>``, ``<doc id>:1``, ..."""
    text: str
    """The text that is embedded and later shown to the grader and the generator."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Attribute values; cleaned to Chroma-valid scalars (per the schema's types) when stored."""


@dataclass(frozen=True)
class DocumentVersion:
    """One document as it is now: the unit ``Collection.write_documents`` adds or replaces."""

    id: str
    """The document's identity; stored as ``doc_id`` on each of its chunks."""
    fingerprint: str
    """A hash of everything its chunks derive from (text, metadata, chunking); stored as ``doc_hash``.
    The same fingerprint as the stored version means nothing to do, not even embedding."""
    chunks: tuple[Chunk, ...]
    """Its chunks, with ids distinct from every other document's."""


@dataclass(frozen=True)
class DocumentPlan:
    """What checking a document before any write needs of it: its ids, not its text.

    A streamed ingest holds one plan per document (a few dozen bytes a chunk) instead of the
    documents themselves, checks them all (``Collection.check_documents``), then reads the
    documents again one at a time to write them.
    """

    id: str
    fingerprint: str
    chunk_ids: tuple[str, ...]
    source: str = ""
    """Where it was read from (its chunks' ``source``); empty when unknown."""

    @classmethod
    def of(cls, doc: DocumentVersion) -> DocumentPlan:
        source = doc.chunks[0].metadata.get("source", "") if doc.chunks else ""
        return cls(doc.id, doc.fingerprint, tuple(c.id for c in doc.chunks), source if isinstance(source, str) else "")


@dataclass(frozen=True)
class DocumentsWritten:
    """What ``Collection.write_documents`` did, by document id."""

    added: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    embedded: int = 0
    """Chunks embedded and written."""


class StoredDocument(NamedTuple):
    """A document as ``Collection.documents`` lists it."""

    id: str
    source: str
    """Where it came from (a path relative to its ingest root, ``api:<id>``, ...); empty if unknown."""
    chunks: int


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk and how close it is to the query."""

    id: str
    text: str
    metadata: Mapping[str, MetadataValue]
    score: float
    """Cosine similarity in [-1, 1] (``1 - cosine distance``); higher is closer."""


@runtime_checkable
class SearchableCollection(Protocol):
    """What the workflow needs of one collection, and all it needs: the seam other resources plug into.

    ``selfrag.store.Collection`` (Chroma) and ``selfrag.testing.FakeCollection`` implement it; a
    hybrid or reranked retriever over a collection would too. Writing is not part of it: the
    workflow only reads.
    """

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> CollectionSchema:
        """The declared attributes the self-query may filter on."""
        ...

    def catalogue(self) -> dict[str, list[str]]:
        """Known values of each string attribute (the self-query links words to them)."""
        ...

    def search(
        self, query: str, *, where: dict[str, Any] | None = None, k: int = 4, min_score: float | None = None
    ) -> list[Hit]:
        """At most ``k`` hits nearest ``query`` among the chunks matching ``where``, best first.

        Args:
            query: Text to search for.
            where: A Chroma ``where`` filter applied *before* ranking, or None for no filter.
            k: Maximum number of hits.
            min_score: Drop hits whose cosine similarity is below this.

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
        """
        ...

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order asked; unknown ids are skipped."""
        ...

    def newest(self, *, attribute: str, where: dict[str, Any] | None = None, k: int = 4, today: date | None = None) -> list[Hit]:
        """The ``k`` chunks matching ``where`` with the latest ``attribute`` (a ``date``), newest
        first: latest-first retrieval, for questions with filters but no topic."""
        ...

    def count(self) -> int:
        """How many chunks it holds."""
        ...

    def count_documents(self, where: dict[str, Any] | None, *, cap: int = 10_000) -> int | None:
        """How many documents have a chunk matching ``where``; None when more than ``cap`` chunks
        match (counting them would read every match)."""
        ...

    def matching(self, where: dict[str, Any] | None, *, cap: int = 1_000) -> list[Chunk] | None:
        """Every chunk matching ``where`` (the whole collection when None), in no order; None when
        more than ``cap`` match (ranking them would read every match).

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
        """
        ...

    def lexical_source(self) -> ChunkSource | None:
        """What a lexical (BM25) index reads this collection through, or None: the collection is
        searched dense only (a store that cannot list its chunks or their changes)."""
        ...


@runtime_checkable
class WritableCollection(Protocol):
    """What ingest needs to write one collection by document: the writing side, kept apart from
    ``SearchableCollection`` (the workflow only reads). ``selfrag.store.Collection`` implements both."""

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> CollectionSchema: ...

    @property
    def write_batch(self) -> int:
        """The most chunks per write: ingest reads and embeds windows of this size."""
        ...

    def check_documents(self, plans: Iterable[DocumentPlan]) -> int:
        """Check every plan against the schema and the stored chunks before anything is written;
        return how many chunks will be embedded."""
        ...

    def write_documents(
        self, documents: Iterable[DocumentVersion], *, progress: ProgressCallback | None = None, total: int | None = None
    ) -> DocumentsWritten:
        """Add each document, or replace the stored version (unchanged ones cost nothing)."""
        ...

    def documents(self) -> list[StoredDocument]:
        """Every stored document, sorted by id."""
        ...

    def documents_from(self, sources: Iterable[str]) -> dict[str, set[str]]:
        """The ids of the stored documents that came from each of ``sources``."""
        ...

    def delete_documents(self, doc_ids: Iterable[str]) -> list[str]:
        """Delete documents (every chunk of each); return the ids of those that existed."""
        ...


@runtime_checkable
class CollectionSource(Protocol):
    """Where the workflow finds a collection by name (``selfrag.store.Store``, ``FakeStore``)."""

    def get_collection(self, name: str) -> SearchableCollection:
        """The collection ``name``.

        Raises:
            CollectionNotFound: no collection has that name.
        """
        ...
