"""Where lexical retrieval reads chunks from: the collection itself, through a small Protocol.

A store offers it with ``SearchableCollection.lexical_source()`` (None: the collection is searched
dense only), so retrieval never reaches into a store's internals to build one. It lives with the
store because only the store knows how to list, read and filter its chunks cheaply.

The lexical index holds terms, never the text shown to a grader: hits are read back from the
collection by id, so a chunk deleted since it was indexed never surfaces and its text and metadata
are always the stored ones. A filter is evaluated by the collection too (``matching``), at query
time, so the lexical side selects exactly what the dense side selects for the same ``where``.

The source also gives the collection's change log (``selfrag.store.changes``): what the lexical
index catches up from, instead of listing the whole collection after each write.

``ChromaChunkSource`` implements it over a Chroma collection (what ``Collection.lexical_source``
returns); another store implements the same five methods.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from chromadb.api.types import validate_where

from selfrag.errors import InvalidFilter
from selfrag.store._errors import chroma_errors
from selfrag.store.changes import ChangeLog
from selfrag.store.types import Chunk, MetadataValue
from selfrag.values import date_text

if TYPE_CHECKING:
    from chromadb.api.models.Collection import Collection as ChromaCollection

__all__ = ["VERSION_KEY", "ChromaChunkSource", "ChunkSource", "chunk_version", "stored_metadata", "text_version"]

VERSION_KEY = "doc_hash"
"""Chunk metadata written by ``Collection.write_documents``: its document's fingerprint, which
changes whenever any of its chunks would (text, metadata, chunking)."""

_PAGE = 5000
"""Rows per Chroma read while listing a whole collection (bounded memory, few round trips)."""


def text_version(text: str) -> str:
    """The version of a chunk stored without a document fingerprint: a hash of its text."""
    return "t:" + hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def chunk_version(chunk: Chunk) -> str:
    """The version of a stored chunk: its document's fingerprint, else a hash of its text."""
    version = chunk.metadata.get(VERSION_KEY)
    return "d:" + version if isinstance(version, str) and version else text_version(chunk.text)


@runtime_checkable
class ChunkSource(Protocol):
    """A collection as lexical retrieval sees it."""

    @property
    def name(self) -> str:
        """The collection's name (also the name of its persisted index)."""
        ...

    def matching(self, where: dict[str, Any]) -> list[str]:
        """Ids of the chunks ``where`` selects (Chroma filter syntax).

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
        """
        ...

    def versions(self) -> dict[str, str]:
        """Every chunk id → its version (changes whenever its text may have changed)."""
        ...

    def read(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks of these ids, in the order asked; ids no longer stored are skipped."""
        ...

    def changes(self) -> ChangeLog:
        """The collection's change log as stored now (one small read)."""
        ...


class ChromaChunkSource:
    """``ChunkSource`` over a Chroma collection (embedded or server)."""

    def __init__(self, chroma: ChromaCollection, *, dates: frozenset[str] = frozenset()) -> None:
        self._chroma = chroma
        self._dates = dates

    @property
    def name(self) -> str:
        return self._chroma.name

    def matching(self, where: dict[str, Any]) -> list[str]:
        try:
            validate_where(cast(Any, where))
        except (ValueError, TypeError) as exc:
            raise InvalidFilter(f"invalid filter {json.dumps(where, default=str)}: {exc}") from None
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            return list(self._chroma.get(where=cast(Any, where), include=[])["ids"])

    def versions(self) -> dict[str, str]:
        out: dict[str, str] = {}
        unversioned: list[str] = []
        offset = 0
        while True:
            with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
                page = self._chroma.get(include=cast(Any, ["metadatas"]), limit=_PAGE, offset=offset)
            ids = page["ids"]
            for chunk_id, meta in zip(ids, page["metadatas"] or [], strict=False):
                version = (meta or {}).get(VERSION_KEY)
                if isinstance(version, str) and version:
                    out[chunk_id] = "d:" + version
                else:
                    unversioned.append(chunk_id)
            if len(ids) < _PAGE:
                break
            offset += len(ids)
        # Chunks written one by one (``Collection.add``) carry no fingerprint: hash their text.
        for start in range(0, len(unversioned), _PAGE):
            for chunk in self.read(unversioned[start : start + _PAGE]):
                out[chunk.id] = text_version(chunk.text)
        return out

    def changes(self) -> ChangeLog:
        chroma = self._chroma
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            current = chroma._client.get_collection(chroma.name, tenant=chroma.tenant, database=chroma.database)  # noqa: SLF001
        return ChangeLog.of(current.metadata)

    def read(self, ids: Sequence[str]) -> list[Chunk]:
        wanted = list(dict.fromkeys(ids))  # Chroma rejects duplicate ids
        if not wanted:
            return []
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            found = self._chroma.get(ids=wanted, include=cast(Any, ["documents", "metadatas"]))
        by_id = {
            i: Chunk(i, doc or "", stored_metadata(meta, self._dates))
            for i, doc, meta in zip(found["ids"], found["documents"] or [], found["metadatas"] or [], strict=False)
        }
        return [by_id[i] for i in wanted if i in by_id]


def stored_metadata(meta: Mapping[str, Any] | None, dates: frozenset[str] = frozenset()) -> dict[str, MetadataValue]:
    """Stored metadata as the caller gave it: scalars and string lists (``string[]``), with the
    ``date`` attributes (stored as YYYYMMDD integers) rendered back as ISO text."""
    out: dict[str, MetadataValue] = {}
    for k, v in (meta or {}).items():
        if k in dates and isinstance(v, int) and not isinstance(v, bool):
            out[k] = date_text(v)
        elif isinstance(v, (str, int, float, bool)):
            out[k] = v
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            out[k] = [str(x) for x in v]
    return out
