"""``ingest_paths``: files → documents → metadata → chunks → the collection.

Everything is read, extracted, split and checked against the schema *before* the first write,
so a bad file anywhere in the batch fails the run with the collection exactly as it was.
The core never prints: progress goes to an optional ``progress(done, total)`` callback
(see ``rich_progress``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from selfrag.errors import IngestError, UsageError
from selfrag.ingest.extract import MetadataExtractor
from selfrag.ingest.files import collect_files
from selfrag.ingest.loaders import load_file
from selfrag.ingest.split import Splitter
from selfrag.ingest.types import IngestReport, SourceDocument
from selfrag.schema import CollectionSchema
from selfrag.settings import StoreSettings
from selfrag.store import Chunk, Collection, ProgressCallback, clean_metadata

__all__ = ["ingest_paths", "prepare_chunks", "prepare_documents"]

_DEFAULTS = StoreSettings()


def prepare_chunks(
    schema: CollectionSchema,
    paths: Iterable[str | Path],
    *,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
) -> tuple[list[Chunk], int, list[Path]]:
    """Read and split ``paths`` for a collection of ``schema``: (chunks, files read, ignored files).

    Writes nothing; ``ingest_paths`` stores the result.

    Metadata precedence per document: what the input states (file-level and jsonl metadata)
    over what the schema's extractors find. Values are coerced to the schema's types here, so a
    jsonl ``"year": "unknown"`` fails with its line number.

    Raises:
        IngestError: any path is missing, unsupported, unreadable, malformed or has bad metadata.
        UsageError: the chunk size and overlap are inconsistent.
    """
    files, ignored = collect_files(paths)

    def documents() -> Iterator[tuple[str, SourceDocument]]:
        for path in files:
            for doc in load_file(path):
                yield (f"{path}:{doc.line}" if doc.line is not None else str(path)), doc

    chunks = _split(schema, documents(), chunk_size, chunk_overlap)
    return chunks, len(files), ignored


def prepare_documents(
    schema: CollectionSchema,
    documents: Iterable[SourceDocument],
    *,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
) -> list[Chunk]:
    """Split documents already in memory (the HTTP service's JSON documents) like ``prepare_chunks``.

    Errors name the document by its ``doc_id`` (or its position when it has none).

    Raises:
        IngestError: a document has bad metadata for the schema.
        UsageError: the chunk size and overlap are inconsistent.
    """
    labelled = ((doc.doc_id or f"document {n}", doc) for n, doc in enumerate(documents, 1))
    return _split(schema, labelled, chunk_size, chunk_overlap)


def _split(
    schema: CollectionSchema, documents: Iterable[tuple[str, SourceDocument]], chunk_size: int, chunk_overlap: int
) -> list[Chunk]:
    try:
        splitter = Splitter(chunk_size, chunk_overlap)
    except ValueError as exc:
        raise UsageError(f"invalid chunking settings: {exc}") from None
    extract = MetadataExtractor(schema)
    chunks: dict[str, Chunk] = {}
    for where, doc in documents:
        merged = {**extract(doc.text), **doc.metadata}
        try:
            metadata = clean_metadata(merged, schema)
        except ValueError as exc:
            raise IngestError(f"{where}: {exc}") from None
        for chunk in splitter.split(doc, metadata):
            chunks.setdefault(chunk.id, chunk)
    return list(chunks.values())


def ingest_paths(
    collection: Collection,
    paths: Iterable[str | Path],
    *,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Ingest files and directories (walked recursively) into ``collection``.

    Idempotent: ingesting the same files again adds nothing (``report.skipped`` counts them).
    ``progress(done, total)`` is called as chunks are embedded and stored, the slow part.

    Example::

        report = ingest_paths(store.get_collection("filings"), ["reports/"], progress=callback)

    Raises:
        IngestError: bad input; nothing has been written.
        StoreError, ProviderError: Chroma or the embeddings failed while writing.
    """
    chunks, files, ignored = prepare_chunks(
        collection.schema, paths, chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )
    added = collection.add(chunks, progress=progress)
    return IngestReport(
        files=files,
        chunks=len(chunks),
        added=added,
        skipped=len(chunks) - added,
        ignored=tuple(str(p) for p in ignored),
    )
