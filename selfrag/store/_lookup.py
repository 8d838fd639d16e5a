"""Reading a Chroma collection by document: the lookups behind ``Collection``'s document methods.

Chroma knows chunks; a document is the set of chunks whose ``doc_id`` metadata names it. Lookups
go ``_LOOKUP`` ids at a time: SQLite caps the variables of one statement, and Chroma does not split
a long ``$in`` list or id list itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from chromadb.api.models.Collection import Collection as ChromaCollection

from selfrag.errors import IngestError
from selfrag.store._errors import chroma_errors
from selfrag.store.types import DocumentPlan, DocumentVersion, MetadataValue

__all__ = ["check_chunk_ids", "documents_from", "groups", "same_version", "scan", "stored_chunks"]

_LOOKUP = 100

StoredChunks = dict[str, dict[str, dict[str, Any]]]
"""doc id → {chunk id: stored metadata}."""


def _reading(chroma: ChromaCollection) -> Any:
    return chroma_errors(f"cannot read collection {chroma.name!r}", collection=chroma.name)


IdsWith = Callable[[str, Sequence[str]], "list[str] | None"]
"""``(key, values)`` → ids of the chunks whose metadata ``key`` is one of ``values``, through an
index (``ColumnCache.ids_with``); None: unavailable, filter through Chroma."""


def stored_chunks(chroma: ChromaCollection, doc_ids: Sequence[str], ids_with: IdsWith | None = None) -> StoredChunks:
    """The stored chunks of those of ``doc_ids`` that are stored.

    With ``ids_with`` the chunks are found through the metadata index and read by id (both cost the
    same at any collection size); without it, or when it cannot answer, Chroma filters by
    ``doc_id`` (a pass over the whole collection in the embedded Chroma)."""
    stored: StoredChunks = {}
    for start in range(0, len(doc_ids), _LOOKUP):
        part = list(doc_ids[start : start + _LOOKUP])
        ids = ids_with("doc_id", part) if ids_with is not None else None
        with _reading(chroma):
            if ids is None:
                got = chroma.get(where=cast(Any, {"doc_id": {"$in": part}}), include=["metadatas"])
            elif ids:
                got = chroma.get(ids=ids, include=["metadatas"])
            else:
                continue
        wanted = set(part)
        for cid, meta in zip(got["ids"], got["metadatas"] or [], strict=False):
            doc_id = (meta or {}).get("doc_id")
            if doc_id in wanted:  # read by id: the metadata may have changed since the index was read
                stored.setdefault(str(doc_id), {})[cid] = dict(meta or {})
    return stored


def documents_from(chroma: ChromaCollection, sources: Iterable[str]) -> dict[str, set[str]]:
    """source → ids of the stored documents whose ``source`` metadata it is."""
    wanted = list(dict.fromkeys(sources))
    found: dict[str, set[str]] = {}
    for start in range(0, len(wanted), _LOOKUP):
        part = wanted[start : start + _LOOKUP]
        with _reading(chroma):
            got = chroma.get(where=cast(Any, {"source": {"$in": part}}), include=["metadatas"])
        for meta in got["metadatas"] or []:
            source, doc_id = (meta or {}).get("source"), (meta or {}).get("doc_id")
            if isinstance(source, str) and isinstance(doc_id, str):
                found.setdefault(source, set()).add(doc_id)
    return found


def check_chunk_ids(chroma: ChromaCollection, docs: Sequence[DocumentPlan], stored: StoredChunks, owner: dict[str, str]) -> None:
    """Each chunk id is used once, and not by a stored chunk of another document.

    ``owner`` (chunk id → document id) holds the chunks already checked in this write and gains
    those of ``docs``: a write checked part by part still finds two parts that share a chunk id.

    Raises:
        IngestError: naming the documents that clash.
    """
    new: dict[str, str] = {}
    for doc in docs:
        for cid in doc.chunk_ids:
            if cid in owner or cid in new:
                raise IngestError(f"documents {owner.get(cid) or new[cid]!r} and {doc.id!r} both have a chunk {cid!r}")
            new[cid] = doc.id
    foreign = [cid for cid, doc_id in new.items() if cid not in stored.get(doc_id, {})]
    for start in range(0, len(foreign), _LOOKUP):
        with _reading(chroma):
            got = chroma.get(ids=foreign[start : start + _LOOKUP], include=["metadatas"])
        for cid, meta in zip(got["ids"], got["metadatas"] or [], strict=False):
            other = (meta or {}).get("doc_id")
            taken = f"document {other!r}" if other else "a chunk of no document"
            raise IngestError(f"document {new[cid]!r}: its chunk id {cid!r} is already taken by {taken}; give it another id")
    owner.update(new)


def same_version(doc: DocumentPlan, stored: Mapping[str, Mapping[str, Any]] | None) -> bool:
    """The stored chunks are exactly this version's (legacy chunks have no ``doc_hash``: never the same)."""
    if not stored:
        return False
    return set(stored) == set(doc.chunk_ids) and all(m.get("doc_hash") == doc.fingerprint for m in stored.values())


def groups(docs: Iterable[DocumentVersion], size: int) -> Iterator[list[DocumentVersion]]:
    """Whole documents, about ``size`` chunks at a time (a larger document is a group of its own);
    ``docs`` is consumed as the groups are, so a stream is never held whole."""
    group: list[DocumentVersion] = []
    count = 0
    for doc in docs:
        if group and count + len(doc.chunks) > size:
            yield group
            group, count = [], 0
        group.append(doc)
        count += len(doc.chunks)
    if group:
        yield group


def scan(chroma: ChromaCollection) -> Iterator[tuple[str, dict[str, MetadataValue]]]:
    """Every chunk's id and scalar metadata, a page at a time."""
    offset, page = 0, 1000
    while True:
        with _reading(chroma):
            found = chroma.get(include=["metadatas"], limit=page, offset=offset)
        for cid, meta in zip(found["ids"], found["metadatas"] or [], strict=False):
            yield cid, {k: v for k, v in (meta or {}).items() if isinstance(v, (str, int, float, bool))}
        if len(found["ids"]) < page:
            return
        offset += page
