"""``ingest_paths``: files → documents → the collection, one identity per document.

A document's identity is its id (given in a jsonl line or the API, else its file's path relative to
the ingest root). Ingesting a document again replaces what was stored under its id: unchanged
documents cost nothing, edited ones are re-embedded and their stale chunks deleted. Everything is
read, split and checked *before* the first write (``read_inputs``, then ``Collection.check_documents``),
so bad input never leaves a half-written collection; the first window's documents are kept from
that read and the other files read again as they are written, so a corpus is never held in memory
whole. The core never prints: progress goes to an optional
``progress(stage, done, total)`` callback (see ``stage_progress``).

"Removed" has two deliberate, narrow meanings; nothing else is ever deleted by an ingest:

- a file read again holds only what it holds now: documents stored from it before but no longer in
  it (an edited or deleted jsonl line; a copy stored under its absolute path by an older selfrag)
  are removed;
- with ``prune``, documents stored from a walked folder whose file is no longer there are removed
  (a file that is still there but could not be read this time is kept).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from selfrag.errors import UsageError
from selfrag.ingest.files import collect_files
from selfrag.ingest.mentions import MentionExtractor
from selfrag.ingest.prepare import ReadBatch, read_inputs
from selfrag.ingest.progress import StageProgress
from selfrag.ingest.types import IngestReport
from selfrag.settings import StoreSettings
from selfrag.store import WritableCollection

__all__ = ["ingest_paths", "store_batch"]

_DEFAULTS = StoreSettings()


def ingest_paths(
    collection: WritableCollection,
    paths: Iterable[str | Path],
    *,
    root: str | Path | None = None,
    prune: bool = False,
    strict: bool = False,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
    progress: StageProgress | None = None,
    mentions: MentionExtractor | None = None,
) -> IngestReport:
    """Ingest files and directories (walked recursively) into ``collection``.

    Example::

        report = ingest_paths(store.get_collection("filings"), ["reports/"], prune=True)

    Args:
        root: Identities are paths relative to it (default: the folder above each path).
        prune: Remove documents of walked folders whose files are gone.
        strict: A file in a folder that cannot be read fails the run instead of being skipped.
        mentions: fills the graph mention attributes a document's metadata lacks (see ``MentionExtractor``).

    Raises:
        IngestError: bad input; nothing has been written.
        StoreError, ProviderError: Chroma or the embeddings failed while writing.
    """
    inputs = collect_files(paths, root=root)
    batch = read_inputs(
        collection.schema, inputs, strict=strict, chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=progress,
        mentions=mentions, keep=collection.write_batch,
    )
    return store_batch(collection, batch, prune=prune, progress=progress)


def store_batch(
    collection: WritableCollection, batch: ReadBatch, *, prune: bool = False, progress: StageProgress | None = None
) -> IngestReport:
    """Write what ``read_inputs`` (or ``prepare_documents``) read, then remove what it supersedes.

    Raises:
        UsageError: ``prune`` without a folder below the ingest root to prune in.
        IngestError: a document's chunk ids collide with another document's.
        StoreError, ProviderError: Chroma or the embeddings failed while writing.
    """
    prefixes = _prune_prefixes(batch) if prune else ()
    to_embed = collection.check_documents(batch.plans)  # all of it, before the first write
    # The lookup of what the batch supersedes runs beside the encoder rather than after the last
    # write, where it would add to the wall time (see ``_superseded`` for why it may run early).
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"selfrag-superseded-{collection.name}") as lookup:
        superseded = lookup.submit(_superseded, collection, batch)
        written = collection.write_documents(
            batch.documents,
            progress=None if progress is None else lambda done, total: progress("embedding", done, total),
            total=to_embed,
        )
        stale = superseded.result()
    if prefixes:
        # After the writes: the scan reads in pages, which rows deleted meanwhile (a document's
        # stale chunks) would shift. A document of the batch now has a source that was found.
        for stored in collection.documents():
            if stored.source not in batch.seen and stored.source.startswith(prefixes):
                stale.add(stored.id)
    # After the writes, so that a document never goes missing while its new version is stored.
    removed = collection.delete_documents(sorted(stale)) if stale else []
    return IngestReport(
        files=batch.files,
        chunks=batch.chunks,
        added=written.added,
        replaced=written.replaced,
        unchanged=written.unchanged,
        removed=tuple(removed),
        embedded=written.embedded,
        skipped=tuple(batch.skipped),
        ignored=tuple(batch.ignored),
    )


def _superseded(collection: WritableCollection, batch: ReadBatch) -> set[str]:
    """Stored documents from the batch's files (under any of their names) that the files no longer hold.

    Exact whenever it runs, before, during or after the batch's writes: a write only stores
    documents of the batch, under the source of the file that holds them now, and every other
    document keeps the source it had; so the documents of the batch are excluded, under whatever
    source they were stored before, and the rest is the same at any time.
    """
    names = {alias: source for source, aliases in batch.sources.items() for alias in (source, *aliases)}
    stale = {i for ids in collection.documents_from(names).values() for i in ids}
    return stale - {plan.id for plan in batch.plans}


def _prune_prefixes(batch: ReadBatch) -> tuple[str, ...]:
    """Source prefixes of the walked folders: their own (``reports/``), and the absolute path an
    older selfrag stored."""
    if not batch.folders:
        raise UsageError("--prune needs a folder to prune in; it removes documents whose files left that folder")
    prefixes: list[str] = []
    for folder in batch.folders:
        if not folder.source:
            raise UsageError(
                f"--prune cannot tell the documents of {folder.path} from others: it is the ingest root itself; "
                "name the folder without --root (or with a --root above it)"
            )
        prefixes += [folder.source + "/", str(folder.path.resolve()) + "/"]
    return tuple(prefixes)
