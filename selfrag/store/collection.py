"""A selfrag collection: a Chroma collection plus the embeddings and schema that give it meaning.

Why we embed ourselves instead of handing Chroma an embedding function: the embeddings are an
injected dependency (MiniLM offline, OpenAI, or ``HashEmbeddings`` in tests), and Chroma's own
functions would download models. The collection's schema, catalogue and embedding dimension live
in the Chroma collection's metadata, so they travel with it to a Chroma server and survive a
restart; ``Store`` creates collections with that metadata in place.
"""

from __future__ import annotations

import heapq
import json
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NamedTuple, cast

import numpy as np
from chromadb.api.models.Collection import Collection as ChromaCollection
from chromadb.api.types import validate_where
from langchain_core.embeddings import Embeddings

from selfrag.errors import ConfigError, IngestError, InvalidFilter, StoreError, UsageError
from selfrag.schema import CollectionSchema
from selfrag.store._column_cache import column_cache
from selfrag.store._errors import chroma_errors
from selfrag.store._lookup import check_chunk_ids, documents_from, groups, same_version, scan, stored_chunks
from selfrag.store._record import CollectionRecord
from selfrag.store.catalogue import CATALOGUED_TYPES
from selfrag.store.changes import ChangeLog
from selfrag.store.metadata import clean_metadata
from selfrag.store.source import ChromaChunkSource, stored_metadata
from selfrag.store.types import (
    Chunk,
    DocumentPlan,
    DocumentsWritten,
    DocumentVersion,
    Hit,
    ProgressCallback,
    StoredDocument,
)
from selfrag.values import date_number

__all__ = ["EXACT_LIMIT", "FILTERED_BREADTH", "WRITE_BATCH", "Collection"]

_DELETE = 100
"""Ids per delete call (SQLite caps the variables of one statement)."""

_LOOKUP_DOCS = 100
"""Documents per lookup while checking (their ids go into one ``$in``)."""

_BREADTH_SHARE = 0.2
"""Breadth of an id-restricted index search, as a share of the ids (see ``_index_search``)."""

_ID_QUERY = 50_000
"""The most ids a filtered search hands to the index; a filter matching more is searched with
``where`` again (evaluated twice, but at that share the filter hardly narrows the search)."""

EXACT_LIMIT = 1000
"""A filter matching at most this many chunks is searched exactly (its candidates' vectors scored
one by one) instead of through the HNSW index; 0 turns exact search off. Placed at the crossover
measured by ``bench/filtered_retrieval.py``."""

FILTERED_BREADTH = 1200
"""The most candidates a filtered search through the index keeps (its per-query ``ef``); see
``_index_search``. Measured: the exact top 4 under filters matching 1 to 10 % of 100,000 chunks,
uniform vectors included (clustered ones need far less)."""

WRITE_BATCH = 1000
"""The most chunks per Chroma write by default. Each upsert has a fixed cost (a transaction, the
log, the index), so 64-row writes reach a third of the throughput of 1,000-row ones; Chroma's own
ceiling (``get_max_batch_size``, ~5,000 embedded) is never approached. ``write_documents`` takes
documents this many chunks at a time (a window, sorted by length for the encoder) and writes them
as the encoder completes them, or each window in one call when the encoder computes in this
process (see ``Collection._embed_window``); ``add`` writes this many at a time. Also bounds the
chunks and vectors held at once."""


def _writes_stop_encoder(embeddings: Embeddings) -> bool:
    """Whether the encoder computes in this process (``computes_in_process = True``, as
    ``LocalEmbeddings`` declares): then it needs the GIL between its operations, which an
    embedded Chroma write holds throughout. Anything else (an API client, a wrapper that does not
    say) is taken to wait on I/O, beside which writes run freely."""
    return getattr(embeddings, "computes_in_process", False) is True


class Collection:
    """Chunks of text with metadata, searchable by meaning with a metadata pre-filter.

    Implements ``SearchableCollection``. Writes go by document (``write_documents``: a document's chunks are
    replaced as one) or, below that, by chunk (``add``). Not safe for concurrent writers: the
    catalogue is read once and written back whole, so two simultaneous ingests may each drop the
    other's new catalogue values. The embedded store admits one writing process (see
    ``selfrag.store.lock``); the service serialises writers per collection across instances.
    """

    def __init__(
        self,
        chroma: ChromaCollection,
        embeddings: Embeddings,
        *,
        batch_size: int = 64,
        write_batch: int = WRITE_BATCH,
        exact_limit: int = EXACT_LIMIT,
        filtered_breadth: int = FILTERED_BREADTH,
        filter_cache: bool = True,
    ) -> None:
        if batch_size < 1 or write_batch < 1 or filtered_breadth < 1 or exact_limit < 0:
            raise ValueError("batch_size, write_batch and filtered_breadth must be at least 1, exact_limit at least 0")
        self._exact_limit = exact_limit
        self._filtered_breadth = filtered_breadth
        self._chroma = chroma
        self.name: str = chroma.name
        """The collection's name (read-only by convention; renaming is not supported)."""
        self._embeddings = embeddings
        self._batch_size = batch_size
        self._write_batch = write_batch
        self._record = CollectionRecord.decode(chroma.name, chroma.metadata)
        self._columns = column_cache(chroma) if filter_cache else None
        # A document's stored chunks through the metadata index, not Chroma's filter (``ColumnCache.ids_with``).
        self._ids_with = self._columns.ids_with if self._columns is not None else None
        self.before_commit: Callable[[], None] | None = None
        """Called just before the catalogue record is saved; raises to stop the write (a writer
        whose lock was lost must not replace the record another writer saved: ``selfrag.service.locks``)."""

    @property
    def write_batch(self) -> int:
        """Chunks per write window (``store.write_batch_size``): what ingest embeds, then writes, at a time."""
        return self._write_batch

    @property
    def schema(self) -> CollectionSchema:
        """The attribute schema declared when the collection was created."""
        return self._record.schema

    def catalogue(self) -> dict[str, list[str]]:
        """Known values of each string attribute (a copy), sorted, one spelling per value."""
        values = self._record.catalogue.values
        return {a.name: list(values[a.name]) for a in self._record.schema.attributes if a.name in values}

    def known_values(self, attribute: str) -> list[str]:
        """Known values of one string attribute; empty when none are known or it is not a string."""
        return list(self._record.catalogue.values.get(attribute, []))

    def catalogue_complete(self, attribute: str) -> bool:
        """False when the attribute hit the catalogue's bound, so unknown values may still be stored."""
        return attribute not in self._record.catalogue.incomplete

    def count(self) -> int:
        with chroma_errors(f"cannot count collection {self.name!r}", collection=self.name):
            return self._chroma.count()

    def count_documents(self, where: dict[str, Any] | None, *, cap: int = 10_000) -> int | None:
        """How many documents (a ``doc_id``'s chunks are one) have a chunk matching ``where``; None
        when more than ``cap`` chunks match.

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
        """
        where = _checked_where(where)
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            rows = self._chroma.get(where=cast(Any, where), include=["metadatas"], limit=cap + 1)
        if len(rows["ids"]) > cap:
            return None
        return len({str((m or {}).get("doc_id") or i) for i, m in zip(rows["ids"], rows["metadatas"] or [], strict=False)})

    def matching(self, where: dict[str, Any] | None, *, cap: int = 1_000) -> list[Chunk] | None:
        """Every chunk matching ``where``, or None when more than ``cap`` do.

        Raises:
            InvalidFilter: ``where`` is not a valid filter.
            StoreError: Chroma failed.
        """
        where = _checked_where(where)
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            rows = self._chroma.get(where=cast(Any, where), include=["documents", "metadatas"], limit=cap + 1)
        if len(rows["ids"]) > cap:
            return None
        return [Chunk(i, doc or "", stored_metadata(meta, self._dates))
                for i, doc, meta in zip(rows["ids"], rows["documents"] or [], rows["metadatas"] or [], strict=False)]

    def add(self, chunks: Iterable[Chunk], *, progress: ProgressCallback | None = None) -> int:
        """Store chunks by id, embedding only those not already stored with the same text.

        The chunk-level write beneath ``write_documents`` (which also removes a document's stale
        chunks): re-adding a chunk changes nothing, a metadata-only change is written without
        re-embedding. Metadata is cleaned against the schema for every
        chunk *before* anything is written, so one bad value leaves the collection untouched.

        Returns:
            How many ids were not in the collection before.

        Raises:
            IngestError: a chunk's metadata does not fit the schema.
            ConfigError: the embeddings' dimension differs from the one the collection was built with.
            StoreError: Chroma failed.
        """
        batch = self._prepare(chunks)
        total = len(batch)
        added = 0
        for start in range(0, total, self._write_batch):
            part = batch[start : start + self._write_batch]
            added += self._write(part)
            if self._record.catalogue.merge((c.metadata for c in part), self._record.schema):
                self._save_metadata()
            if progress is not None:
                progress(min(start + len(part), total), total)
        return added

    def _prepare(self, chunks: Iterable[Chunk], *, distinct: bool = False) -> list[Chunk]:
        prepared: dict[str, Chunk] = {}
        for chunk in chunks:
            if not chunk.id:
                raise IngestError("a chunk has an empty id")
            if not chunk.text.strip():
                raise IngestError(f"chunk {chunk.id} has no text")
            if chunk.id in prepared:
                if distinct:
                    raise IngestError(f"chunk id {chunk.id!r} is given twice")
                continue  # same content twice in one call: Chroma rejects duplicate ids
            try:
                metadata = clean_metadata(chunk.metadata, self._record.schema)
            except ValueError as exc:
                raise IngestError(f"chunk {chunk.id}: {exc}") from None
            prepared[chunk.id] = Chunk(chunk.id, chunk.text, metadata)
        return list(prepared.values())

    def _write(self, part: list[Chunk]) -> int:
        """Upsert one batch; return how many ids are new."""
        ids = [c.id for c in part]
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            stored = self._chroma.get(ids=ids, include=["documents", "metadatas"])
        before = {
            i: (doc, dict(meta or {}))
            for i, doc, meta in zip(stored["ids"], stored["documents"] or [], stored["metadatas"] or [], strict=False)
        }
        to_embed = [c for c in part if c.id not in before or before[c.id][0] != c.text]
        to_update = [c for c in part if c.id in before and before[c.id][0] == c.text and before[c.id][1] != c.metadata]
        if to_embed:
            vectors = self._embed([c.text for c in to_embed])
            self._check_dimension(vectors[0] if vectors else [], record=True)
            with self._writing([c.id for c in to_embed]), chroma_errors(
                f"cannot write to collection {self.name!r}", collection=self.name
            ):
                self._chroma.upsert(
                    ids=[c.id for c in to_embed],
                    embeddings=cast(Any, [list(v) for v in vectors]),
                    documents=[c.text for c in to_embed],
                    metadatas=cast(Any, [_replacing(before.get(c.id, ("", {}))[1], c.metadata) for c in to_embed]),
                )
        if to_update:
            with self._writing([c.id for c in to_update]), chroma_errors(
                f"cannot write to collection {self.name!r}", collection=self.name
            ):
                self._chroma.update(
                    ids=[c.id for c in to_update],
                    metadatas=cast(Any, [_replacing(before[c.id][1], c.metadata) for c in to_update]),
                )
        self._changed([c.id for c in [*to_embed, *to_update]], [])
        return sum(1 for i in ids if i not in before)

    # -- documents ---------------------------------------------------------------------------------
    def check_documents(self, plans: Iterable[DocumentPlan]) -> int:
        """Check documents before writing any of them; return how many chunks writing them will embed.

        Each document is named once, and each chunk id is used once and not by a stored chunk of
        another document. Holds the ids (a few dozen bytes a chunk), never the text: a streamed
        ingest checks everything it read this way, then writes it reading it again.

        Raises:
            IngestError: a document is named twice or has no chunks, or a chunk id clashes.
            StoreError: Chroma failed.
        """
        seen: set[str] = set()
        owner: dict[str, str] = {}
        to_embed = 0
        part: list[DocumentPlan] = []

        def check(part: list[DocumentPlan]) -> int:
            stored = stored_chunks(self._chroma, [p.id for p in part], self._ids_with)
            check_chunk_ids(self._chroma, part, stored, owner)
            return sum(len(p.chunk_ids) for p in part if not same_version(p, stored.get(p.id)))

        for plan in plans:
            if not plan.id:
                raise IngestError("a document has an empty id")
            if plan.id in seen:
                raise IngestError(f"document {plan.id!r} is given twice")
            if not plan.chunk_ids:
                raise IngestError(f"document {plan.id!r} has no chunks")
            seen.add(plan.id)
            part.append(plan)
            if len(part) == _LOOKUP_DOCS:
                to_embed, part = to_embed + check(part), []
        return to_embed + (check(part) if part else 0)

    def write_documents(
        self,
        documents: Iterable[DocumentVersion],
        *,
        progress: ProgressCallback | None = None,
        total: int | None = None,
    ) -> DocumentsWritten:
        """Add each document, or replace the version stored under its id.

        A document whose fingerprint equals the stored one costs nothing (no embedding, no write).
        Otherwise its chunks are embedded first, then written over the stored ones in one call, and
        only then are the stored chunks the new version lacks deleted: a reader never finds the
        document missing or doubled (between the two calls it may see a stale tail chunk).

        The documents are taken a window at a time (whole documents, about ``write_batch``
        chunks): a window is checked, then embedded in length-sorted batches, and its documents go
        to one background writer: each as soon as its last chunk is embedded when the encoder
        waits on a remote service (the writes run beside it), the window in one piece when the
        encoder computes in this process (a write would stop it anyway; see ``_embed_window``).
        At most a window is being embedded and a window's worth of chunks is being written: a
        stream (any iterable that is not a sequence) is consumed as it goes and never held whole.

        What is checked before the first write: a *sequence* of documents is checked whole
        (metadata against the schema, each document named once, each chunk id used once and not by
        another document's stored chunk). A stream is checked window by window, so a bad document
        stops the write after the windows before it (each document in them written whole);
        ``check_documents`` on the stream's plans first keeps bad input from writing anything, and
        gives ``total``.

        ``progress(done, total)`` counts the chunks embedded (unchanged documents are not counted),
        after each embedding batch; it shows ``total`` only once everything is written. ``total``
        is computed for a sequence, taken from the argument for a stream (without it, progress is
        reported once, at the end).

        Raises:
            IngestError: a document is named twice, or a chunk's id or metadata is unusable.
            ConfigError: the embeddings' dimension differs from the one the collection was built with.
            StoreError: Chroma failed.
        """
        if isinstance(documents, Sequence):
            prepared = self._prepare_documents(documents)
            total = self.check_documents(DocumentPlan.of(d) for d in prepared)
            stream: Iterable[DocumentVersion] = prepared
        else:
            stream = self._prepared(documents)
        written = _Written()
        owner: dict[str, str] = {}
        done = 0  # chunks written
        embedded = 0  # chunks embedded; progress follows these, and shows the total once written
        if progress is not None and total:
            progress(0, total)
        pending: deque[tuple[Future[int], int]] = deque()  # writes handed to the writer, and their sizes

        def settle(keep: int) -> None:
            """Wait for the oldest writes until at most ``keep`` chunks are in flight (raises a write's error)."""
            nonlocal done
            while pending and sum(n for _, n in pending) > keep:
                done += pending.popleft()[0].result()

        def embedding(count: int) -> None:
            nonlocal embedded
            embedded += count
            if progress is not None and embedded < (total or 0):
                progress(embedded, total or 0)

        failed = threading.Event()
        whole = _writes_stop_encoder(self._embeddings)

        def write(chunks: list[Chunk], vectors: list[list[float]], old: dict[str, dict[str, Any]]) -> int:
            if failed.is_set():  # an earlier write failed: nothing after it may be written
                raise _Skipped
            try:
                return self._write_window(chunks, vectors, old)
            except BaseException:
                failed.set()
                raise

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"selfrag-write-{self.name}") as writer:
            try:
                for group in groups(stream, self._write_batch):
                    todo = self._plan_window(group, owner, written)
                    for chunks, vectors, old in self._embed_window(todo, embedding, whole=whole):
                        # In this thread: the first write records the dimension in the collection's metadata.
                        self._check_dimension(vectors[0] if vectors else [], record=True)
                        pending.append((writer.submit(write, chunks, vectors, old), len(chunks)))
                        # At most a window in flight (memory stays bounded); a failed write stops the rest.
                        settle(0 if failed.is_set() else self._write_batch)
                settle(0)
            finally:
                if pending:  # this thread failed: let the writes under way end before raising
                    wait([f for f, _ in pending])
        if progress is not None and done:
            progress(done, max(done, total or 0))
        if written.catalogue_may_be_stale():
            self._forget_values(written.before - written.after)
        return DocumentsWritten(
            added=tuple(written.added), replaced=tuple(written.replaced), unchanged=tuple(written.unchanged), embedded=done
        )

    def _prepared(self, documents: Iterable[DocumentVersion]) -> Iterator[DocumentVersion]:
        """``_prepare_documents`` one document at a time (only the ids seen are kept)."""
        seen: set[str] = set()
        for doc in documents:
            [prepared] = self._prepare_documents([doc])
            if prepared.id in seen:
                raise IngestError(f"document {prepared.id!r} is given twice")
            seen.add(prepared.id)
            yield prepared

    def _plan_window(self, group: list[DocumentVersion], owner: dict[str, str], written: _Written) -> list[_ToWrite]:
        """Check one window against the store; return its documents to write (unchanged ones are not)."""
        plans = [DocumentPlan.of(d) for d in group]
        stored = stored_chunks(self._chroma, [d.id for d in group], self._ids_with)
        check_chunk_ids(self._chroma, plans, stored, owner)
        strings = [a.name for a in self._record.schema.attributes if a.type == "string"]
        todo: list[_ToWrite] = []
        for doc, plan in zip(group, plans, strict=True):
            before = stored.get(doc.id)
            if same_version(plan, before):
                written.unchanged.append(doc.id)
                continue
            (written.replaced if before else written.added).append(doc.id)
            todo.append(_ToWrite(list(doc.chunks), before or {}))
            for meta in (before or {}).values():
                written.before.update((n, meta[n]) for n in strings if isinstance(meta.get(n), str))
            for chunk in doc.chunks:
                written.after.update((n, chunk.metadata[n]) for n in strings if isinstance(chunk.metadata.get(n), str))
        return todo

    def _embed_window(
        self, todo: list[_ToWrite], embedded: Callable[[int], None], *, whole: bool
    ) -> Iterator[tuple[list[Chunk], list[list[float]], dict[str, dict[str, Any]]]]:
        """Embed a window's chunks in length-sorted batches, longest first (as
        ``SentenceTransformer.encode`` sorts; padding stays near zero); yield documents ready to
        write (their chunks, vectors, and stored chunks' metadata). ``embedded(n)`` follows each batch.

        When to hand documents to the writer depends on the encoder (see ``_writes_stop_encoder``):

        - one that waits on a remote service leaves the process idle, so each batch's completed
          documents are yielded at once and written while the next batches are embedded; only the
          last batch's are written after the encoder. Longest first, that last batch holds the
          shortest chunks (on ``bench/ingest_speed.py``'s folders, 9-78 rows left to write against
          22-97 in ascending order);
        - one that computes in this process needs the GIL between its operations, and the embedded
          Chroma holds it for the whole of a write (``bench/chroma_gil.py``): a write beside the
          encoder stops it, and each write costs ~10-25 ms whatever its size. So the window is
          yielded once, whole (``whole``): on ``bench/ingest_speed.py``'s folders, what ingest
          adds to the encoder falls from 0.57 to 0.43 s a folder (``bench/ingest_writes.py``,
          medians of ten folders: the writes inside the encoder's span and the gaps they cause
          give way to one write of ~0.3 s after it).
        """
        flat = [(d, j) for d, item in enumerate(todo) for j in range(len(item.chunks))]
        order = sorted(range(len(flat)), key=lambda i: -len(todo[flat[i][0]].chunks[flat[i][1]].text))
        remaining = [len(item.chunks) for item in todo]
        vectors: list[list[list[float]]] = [[[] for _ in item.chunks] for item in todo]
        complete: list[int] = []
        for start in range(0, len(order), self._batch_size):
            part = [flat[i] for i in order[start : start + self._batch_size]]
            for (d, j), vector in zip(
                part, self._embeddings.embed_documents([todo[d].chunks[j].text for d, j in part]), strict=True
            ):
                vectors[d][j] = list(vector)
                remaining[d] -= 1
                if remaining[d] == 0:
                    complete.append(d)
            embedded(len(part))
            if complete and (not whole or start + self._batch_size >= len(order)):
                yield (
                    [c for d in complete for c in todo[d].chunks],
                    [v for d in complete for v in vectors[d]],
                    {cid: meta for d in complete for cid, meta in todo[d].old.items()},
                )
                for d in complete:
                    vectors[d] = []
                complete = []

    def _write_window(self, chunks: list[Chunk], vectors: list[list[float]], old: dict[str, dict[str, Any]]) -> int:
        """Write whole documents over their stored versions (``old``: their stored chunks' metadata),
        then delete the stored chunks they lack. The background writer's work, in order.

        A chunk id not in ``old`` is stored nowhere (``check_chunk_ids`` refused any id another
        document or a loose chunk holds), so it is *added*: Chroma's upsert first looks every id
        up, and cost ~1.5x an add per row here (1,000-row writes).
        """
        kept = {c.id for c in chunks}
        stale = [cid for cid in old if cid not in kept]
        new = [i for i, c in enumerate(chunks) if c.id not in old]
        stored = [i for i, c in enumerate(chunks) if c.id in old]
        with self._writing([*kept, *stale]), chroma_errors(f"cannot write to collection {self.name!r}", collection=self.name):
            for rows, write in ((new, self._chroma.add), (stored, self._chroma.upsert)):
                for start in range(0, len(rows), self._write_batch):
                    part = [chunks[i] for i in rows[start : start + self._write_batch]]
                    write(
                        ids=[c.id for c in part],
                        embeddings=cast(Any, [vectors[i] for i in rows[start : start + self._write_batch]]),
                        documents=[c.text for c in part],
                        metadatas=cast(Any, [_replacing(old.get(c.id, {}), c.metadata) for c in part]),
                    )
            for start in range(0, len(stale), _DELETE):
                self._chroma.delete(ids=stale[start : start + _DELETE])
        self._record.catalogue.merge((c.metadata for c in chunks), self._record.schema)
        self._changed(list(kept), stale)  # saves the metadata, the catalogue with it
        return len(chunks)

    def delete_documents(self, doc_ids: Iterable[str]) -> list[str]:
        """Delete documents (every chunk of each); return the ids of those that existed."""
        stored = stored_chunks(self._chroma, list(dict.fromkeys(doc_ids)), self._ids_with)
        chunk_ids = [cid for chunks in stored.values() for cid in chunks]
        gone: set[tuple[str, Any]] = set()
        with self._writing(chunk_ids):
            for start in range(0, len(chunk_ids), _DELETE):
                part = chunk_ids[start : start + _DELETE]
                with chroma_errors(f"cannot delete from collection {self.name!r}", collection=self.name):
                    gone |= self._string_values(self._chroma.get(ids=part, include=["metadatas"])["metadatas"] or [])
                    self._chroma.delete(ids=part)
        if chunk_ids:
            self._changed([], chunk_ids)
            self._forget_values(gone)
        return list(stored)

    def documents_from(self, sources: Iterable[str]) -> dict[str, set[str]]:
        """The ids of the stored documents that came from each of ``sources`` (by ``source`` metadata)."""
        return documents_from(self._chroma, sources)

    def documents(self) -> list[StoredDocument]:
        """Every stored document (a full scan), sorted by id; chunks without a ``doc_id`` are their own."""
        by_id: dict[str, tuple[str, int]] = {}
        for chunk_id, meta in scan(self._chroma):
            doc_id = meta.get("doc_id")
            key = doc_id if isinstance(doc_id, str) else chunk_id
            source = meta.get("source")
            _, count = by_id.get(key, ("", 0))
            by_id[key] = (source if isinstance(source, str) else "", count + 1)
        return [StoredDocument(i, source, n) for i, (source, n) in sorted(by_id.items())]

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """Embed in batches of similar length, returned in the order given.

        A batch is padded to its longest text, so batches cut in input order spend ~30 % of the
        encoder's work on padding; sorted by length, ~4 %. The embeddings still see batches of the
        configured size (an API's request limit, the local encoder's sweet spot).
        """
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            part = order[start : start + self._batch_size]
            for i, vector in zip(part, self._embeddings.embed_documents([texts[i] for i in part]), strict=True):
                vectors[i] = list(vector)
        return vectors

    def _prepare_documents(self, documents: Iterable[DocumentVersion]) -> list[DocumentVersion]:
        """Clean each chunk's metadata and stamp the keys the store relies on; refuse repeated ids."""
        out: dict[str, DocumentVersion] = {}
        for doc in documents:
            if not doc.id:
                raise IngestError("a document has an empty id")
            if doc.id in out:
                raise IngestError(f"document {doc.id!r} is given twice")
            chunks = []
            for chunk in self._prepare(doc.chunks, distinct=True):
                meta = {**chunk.metadata, "doc_id": doc.id, "doc_hash": doc.fingerprint}
                chunks.append(Chunk(chunk.id, chunk.text, meta))
            if not chunks:
                raise IngestError(f"document {doc.id!r} has no chunks")
            out[doc.id] = DocumentVersion(doc.id, doc.fingerprint, tuple(chunks))
        return list(out.values())

    # -- retrieval ---------------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        where: dict[str, Any] | None = None,
        k: int = 4,
        min_score: float | None = None,
    ) -> list[Hit]:
        """The ``k`` chunks nearest ``query`` among those matching ``where``, best first.

        ``where`` is Chroma's filter syntax (``{"year": {"$gt": 2000}}``, ``{"$and": [...]}``)
        and is applied before ranking, so a selective filter still returns up to ``k`` hits.

        Raises:
            InvalidFilter: ``where`` is not a valid Chroma filter.
            UsageError: ``k`` is less than 1.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, got {k}")
        where = _checked_where(where)
        vector = self._embeddings.embed_query(query)
        self._check_dimension(vector)
        hits = self._index_search(vector, k) if where is None else self._filtered_search(vector, where, k)
        if min_score is not None:
            hits = [h for h in hits if h.score >= min_score]
        return hits

    def _filtered_search(self, vector: Sequence[float], where: dict[str, Any], k: int) -> list[Hit]:
        """Top ``k`` of the chunks matching ``where``: their ids first, then exact scoring or the index.

        Chroma's cost for a filter is evaluating it (SQLite groups every metadata row of each
        record: ~230 ms for a year range over 100,000 chunks, ~40 ms for any clause of ~5,000 rows),
        whatever is asked after. So the ids come from the process's column cache of the collection
        when it is current (a few milliseconds; ``_column_cache`` says how it stays exact), else
        from Chroma, once. A few (``exact_limit``) have their vectors read and scored exactly,
        faster than a filtered HNSW walk, which meets so few matching nodes that it crosses most of
        the graph; more go to the index restricted to those ids, asking for ``filtered_breadth`` of
        them (see ``_index_search``). Measured by ``bench/filtered_retrieval.py``.
        """
        snapshot = self._columns.fresh() if self._columns is not None else None
        if snapshot is not None:
            mask = snapshot.columns.matches(where)
            if mask is not None:
                hits = self._search_ids(vector, snapshot.columns.ids_where(mask), k, where)
                # A write since the snapshot (this process or another) may have deleted or changed a
                # chunk among these hits: then the answer is Chroma's, from its current data.
                if self._columns is not None and self._columns.stamp() == snapshot.stamp:
                    return hits
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            ids = self._chroma.get(where=cast(Any, where), include=[])["ids"]
        return self._search_ids(vector, ids, k, where)

    def _search_ids(self, vector: Sequence[float], ids: list[str], k: int, where: dict[str, Any]) -> list[Hit]:
        """Top ``k`` of ``ids`` (the chunks ``where`` matched): exactly when they are few, else by the index."""
        if not ids:
            return []
        if len(ids) <= self._exact_limit:
            return self._exact_search(vector, ids, k)
        if len(ids) <= _ID_QUERY:
            try:
                return self._index_search(vector, k, ids=ids)
            except StoreError:
                pass  # one of the ids was deleted since (Chroma fails the query): ask by the filter again
        for attempt in range(_RACED_DELETE_TRIES):
            try:
                return self._index_search(vector, k, where=where)
            except StoreError as exc:
                # A delete beside this query can still leave Chroma's filtered walk on a removed
                # id ("Error finding id", its only sign of it); the next query sees the delete whole.
                if attempt + 1 == _RACED_DELETE_TRIES or "finding id" not in (exc.detail or ""):
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def _index_search(
        self, vector: Sequence[float], k: int, *, where: dict[str, Any] | None = None, ids: list[str] | None = None
    ) -> list[Hit]:
        """Top ``k`` through Chroma's HNSW index (approximate; its recall depends on the search breadth).

        A search restricted by a filter (``where``, or the ``ids`` it matched) asks for more results
        than ``k``: HNSW keeps ``max(ef_search, n_results)`` candidates, and a filter hides most of
        the neighbourhood the search walks through, so the collection's ``ef_search`` alone misses a
        third of the true top 4 under a filter matching 6 % of 100,000 chunks (uniform vectors).
        Restricted to ``ids``, a fifth of them (at most ``filtered_breadth``) finds the exact top 4
        from 1,000 to 10,000 ids; a larger breadth only costs (with all the ids it is a walk
        through the whole graph). Only the ids and distances of the breadth come back; the top ``k``
        are then read by id. No ``count()`` first: Chroma returns what there is when ``k`` exceeds
        it, and counting a large collection costs more than an unfiltered query.
        """
        breadth = k
        if ids is not None:
            breadth = max(k, min(self._filtered_breadth, math.ceil(len(ids) * _BREADTH_SHARE)))
        elif where is not None:
            breadth = max(k, self._filtered_breadth)
        include = ["distances"] if breadth > k else ["documents", "metadatas", "distances"]
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            result = self._chroma.query(
                query_embeddings=cast(Any, [list(vector)]),
                ids=ids,
                n_results=breadth,
                where=cast(Any, where),
                include=cast(Any, include),
            )
        found = result["ids"][0][:k]
        dists = (result["distances"] or [[]])[0][:k]
        if breadth > k:
            return self._read_hits(found, [1.0 - float(d) for d in dists])
        docs = (result["documents"] or [[]])[0]
        metas = (result["metadatas"] or [[]])[0]
        return [
            Hit(id=i, text=doc or "", metadata=stored_metadata(meta, self._dates), score=1.0 - float(dist))
            for i, doc, meta, dist in zip(found, docs, metas, dists, strict=False)
        ]

    def _read_hits(self, ids: list[str], scores: list[float]) -> list[Hit]:
        """Hits for ids already ranked; one deleted since it was ranked is skipped rather than failed."""
        if not ids:
            return []
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            rows = self._chroma.get(ids=ids, include=["documents", "metadatas"])
        by_id = dict(zip(rows["ids"], zip(rows["documents"] or [], rows["metadatas"] or [], strict=False), strict=False))
        return [
            Hit(id=i, text=by_id[i][0] or "", metadata=stored_metadata(by_id[i][1], self._dates), score=score)
            for i, score in zip(ids, scores, strict=True)
            if i in by_id
        ]

    def _exact_search(self, vector: Sequence[float], ids: list[str], k: int) -> list[Hit]:
        """Top ``k`` of ``ids`` (a selective filter's matches) by scoring each one's vector exactly."""
        with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
            found = self._chroma.get(ids=ids, include=["embeddings"])
        ids = found["ids"]  # one deleted since the filter matched it is gone
        if not ids:
            return []
        scores = _cosines(np.asarray(found["embeddings"], dtype=np.float32), np.asarray(vector, dtype=np.float32))
        top = np.argsort(-scores, kind="stable")[:k] if len(ids) <= k else _top(scores, k)
        return self._read_hits([ids[int(i)] for i in top], [float(scores[i]) for i in top])

    def newest(self, *, attribute: str, where: dict[str, Any] | None = None, k: int = 4, today: date | None = None) -> list[Hit]:
        """The ``k`` chunks matching ``where`` with the latest ``attribute`` (a ``date``), newest first.

        Chroma cannot order, so the matches are found in growing windows back from ``today``
        (1, 4, 16 ... days, then all time) until one holds ``k``; only that window's metadata is
        read and sorted. A large filtered set with recent documents costs a few id-only queries,
        not a read of every match (``bench/latest_first.py``). Hits score 1.0: no similarity was asked.

        Raises:
            InvalidFilter: ``where`` is not a valid filter. UsageError: ``k`` < 1 or no such date attribute.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, got {k}")
        info = self._record.schema.attribute(attribute)
        if info is None or info.type != "date":
            raise UsageError(f"{attribute!r} is not a date attribute of collection {self.name!r}")
        where = _checked_where(where)
        anchor = today or date.today()
        ids: list[str] = []
        for days in (*_WINDOWS_DAYS, None):
            bound: dict[str, Any] | None = None
            if days is not None:
                bound = {attribute: {"$gte": date_number(anchor - timedelta(days=days))}}
            clause = bound if where is None else where if bound is None else {"$and": [where, bound]}
            with chroma_errors(f"cannot query collection {self.name!r}", collection=self.name):
                ids = self._chroma.get(where=cast(Any, clause), include=[])["ids"]
            if len(ids) >= k:
                break
        if not ids:
            return []
        dated: list[tuple[int, str]] = []
        # In pages: Chroma binds each id as one SQLite variable and refuses past its limit.
        for start in range(0, len(ids), _READ_PAGE):
            with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
                rows = self._chroma.get(ids=ids[start:start + _READ_PAGE], include=["metadatas"])
            for i, m in zip(rows["ids"], rows["metadatas"] or [], strict=False):
                value = (m or {}).get(attribute)
                dated.append((value if isinstance(value, int) and not isinstance(value, bool) else 0, i))
        top = heapq.nlargest(k, dated)
        return self._read_hits([i for _, i in top], [1.0] * len(top))

    @property
    def _dates(self) -> frozenset[str]:
        return frozenset(a.name for a in self._record.schema.attributes if a.type == "date")

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks with these ids, in the order asked; unknown ids are skipped."""
        wanted = list(dict.fromkeys(ids))  # Chroma rejects duplicate ids
        if not wanted:
            return []
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            found = self._chroma.get(ids=wanted, include=["documents", "metadatas"])
        by_id = {
            i: Chunk(i, doc or "", stored_metadata(meta, self._dates))
            for i, doc, meta in zip(found["ids"], found["documents"] or [], found["metadatas"] or [], strict=False)
        }
        return [by_id[i] for i in wanted if i in by_id]

    def delete(self, ids: Sequence[str]) -> int:
        """Delete chunks by id; return how many existed.

        The catalogue forgets the values only these chunks held (``Catalogue.forget``: a lookup per
        value, not a scan), so it never offers a value that no longer exists.
        """
        chunks = self.get(ids)
        existing = [c.id for c in chunks]
        if not existing:
            return 0
        with self._writing(existing), chroma_errors(f"cannot delete from collection {self.name!r}", collection=self.name):
            self._chroma.delete(ids=existing)
        self._changed([], existing)
        self._forget_values(self._string_values(c.metadata for c in chunks))
        return len(existing)

    def chunks_of(self, doc_id: str) -> list[str]:
        """Ids of the chunks ``delete_document(doc_id)`` deletes: the document's, or the chunk of that id."""
        return list(dict.fromkeys([*stored_chunks(self._chroma, [doc_id], self._ids_with).get(doc_id, {}),
                                   *(c.id for c in self.get([doc_id]))]))

    def delete_document(self, doc_id: str) -> int:
        """Delete a document: every chunk whose ``doc_id`` metadata is ``doc_id``, or the chunk with
        that id. Returns how many chunks were deleted (0: nothing of that id was stored)."""
        return self.delete(self.chunks_of(doc_id))

    def lexical_source(self) -> ChromaChunkSource:
        """The collection as a lexical index reads it (its chunks, filters and change log, from Chroma)."""
        return ChromaChunkSource(self._chroma, dates=self._dates)

    def _string_values(self, metadatas: Iterable[Mapping[str, Any] | None]) -> set[tuple[str, Any]]:
        """(attribute, value) of the schema's string attributes (and string lists' elements) in
        ``metadatas``: what the catalogue lists."""
        strings = [a.name for a in self._record.schema.attributes if a.type in CATALOGUED_TYPES]
        out: set[tuple[str, Any]] = set()
        for meta in metadatas:
            if not meta:
                continue
            for name in strings:
                value = meta.get(name)
                out.update((name, v) for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))
        return out

    def _forget_values(self, gone: set[tuple[str, Any]]) -> None:
        """After a delete or replace: drop the catalogued values no remaining chunk holds."""

        def held(name: str, value: str) -> bool:
            # The spellings a catalogued value usually has besides its own; through the metadata
            # index when there is one (Chroma's ``where`` reads every record of the collection).
            spellings = list(dict.fromkeys([value, value.lower(), value.upper(), value.title(), value.capitalize()]))
            listed = name in lists
            found = self._columns.holds(name, spellings) if self._columns is not None and not listed else None
            if found is not None:
                return found
            # A list's elements are tested one spelling at a time ($contains takes one value).
            where = ({"$or": [{name: {"$contains": v}} for v in spellings]} if len(spellings) > 1
                     else {name: {"$contains": spellings[0]}}) if listed else {name: {"$in": spellings}}
            with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
                return bool(self._chroma.get(where=cast(Any, where), limit=1, include=[])["ids"])

        lists = {a.name for a in self._record.schema.attributes if a.type == "string[]"}

        if gone and self._record.catalogue.forget(gone, held):
            self._save_metadata()

    def _check_dimension(self, vector: Sequence[float], *, record: bool = False) -> None:
        """Fail early on embeddings of another size; ``record`` the size at the first write."""
        if not vector:
            return
        if self._record.dimension is None:
            if record:
                self._record.dimension = len(vector)
                self._save_metadata()
        elif len(vector) != self._record.dimension:
            raise ConfigError(
                f"collection {self.name!r} holds {self._record.dimension}-dimensional embeddings but the configured "
                f"embeddings give {len(vector)}; use the embeddings it was built with or re-create it"
            )

    @contextmanager
    def _writing(self, ids: Sequence[str]) -> Iterator[None]:
        """Around a Chroma write of ``ids``: the process's column cache follows it (``_column_cache``)."""
        if self._columns is None:
            yield
        else:
            with self._columns.writing(ids):
                yield

    def _changed(self, written: Sequence[str], deleted: Sequence[str]) -> None:
        """After a write: append it to the collection's change log and save the metadata.

        The log is read back from Chroma first: another process may have appended to it since this
        object was opened (``selfrag.store.changes`` says who reads it, and why it lives here).
        """
        if not written and not deleted:
            return
        chroma = self._chroma
        with chroma_errors(f"cannot read collection {self.name!r}", collection=self.name):
            current = chroma._client.get_collection(chroma.name, tenant=chroma.tenant, database=chroma.database)  # noqa: SLF001
        self._record.changes = ChangeLog.of(current.metadata).appended(written, deleted)
        self._save_metadata()

    def _save_metadata(self) -> None:
        if self.before_commit is not None:
            self.before_commit()
        with chroma_errors(f"cannot update collection {self.name!r}", collection=self.name):
            self._chroma.modify(metadata=cast(Any, self._record.encode()))

    def __repr__(self) -> str:
        return f"Collection(name={self.name!r}, attributes={self._record.schema.names})"


class _Skipped(Exception):
    """A write not attempted because an earlier one failed (never escapes ``write_documents``)."""


class _ToWrite(NamedTuple):
    """A document to write: its chunks, and the metadata of its stored chunks (chunk id → metadata)."""

    chunks: list[Chunk]
    old: dict[str, dict[str, Any]]


@dataclass
class _Written:
    """What ``write_documents`` did so far, by document id, and the string values it replaced."""

    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    before: set[tuple[str, Any]] = field(default_factory=set)
    """(attribute, value) of string attributes on the replaced versions' chunks."""
    after: set[tuple[str, Any]] = field(default_factory=set)
    """(attribute, value) of string attributes on the chunks written."""

    def catalogue_may_be_stale(self) -> bool:
        """Whether replaced documents held catalogued values that their new versions no longer have."""
        return bool(self.before - self.after)


def _cosines(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row with ``vector`` (the ``1 - distance`` of Chroma's cosine space)."""
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(vector))
    return np.asarray(matrix @ vector / np.where(norms == 0.0, 1.0, norms), dtype=np.float64)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first (partition, then sort only those)."""
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.argsort(-scores[part], kind="stable")]



def _checked_where(where: dict[str, Any] | None) -> dict[str, Any] | None:
    """``where`` validated as Chroma will read it (None for no filter: Chroma rejects an empty one).

    Raises:
        InvalidFilter: ``where`` is not a valid filter.
    """
    where = where or None
    if where is not None:
        try:
            validate_where(cast(Any, where))
            _check_field_names(where)
        except (ValueError, TypeError) as exc:
            raise InvalidFilter(f"invalid filter {json.dumps(where, default=str)}: {exc}") from None
    return where


def _check_field_names(where: Mapping[str, Any]) -> None:
    """Reject ``$``-keys other than ``$and``/``$or`` where a field name belongs.

    Chroma's client-side check lets ``{"$bad": 1}`` through and only the server (or the Rust
    core) rejects it, as an opaque store failure; the caller's filter is at fault, so say so.
    """
    for key, value in where.items():
        if key in ("$and", "$or"):
            for part in value:
                _check_field_names(part)
        elif key.startswith("$"):
            raise ValueError(f"{key!r} is not a logical operator ($and, $or) nor a field name")


_WINDOWS_DAYS = (1, 4, 16, 64, 256, 1024, 4096, 16384)
"""Windows back from today that ``newest`` tries, each four times the last."""
_RACED_DELETE_TRIES = 3
"""Filtered queries tried when each fails on a chunk deleted beside it (see ``_search_ids``)."""
_READ_PAGE = 5000
"""Ids per metadata read (each is one SQLite variable; see ``bench/filter_limit.py``)."""


def _replacing(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    """Metadata that *replaces* ``old`` with ``new``.

    Chroma's upsert and update merge metadata into what is stored, and delete a key only when it
    is given as None. Chroma also rejects an empty dict, for which None means "no metadata".
    """
    merged: dict[str, Any] = dict(new)
    merged.update({k: None for k in old if k not in new})
    return merged or None
