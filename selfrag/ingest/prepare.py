"""Reading inputs into document versions: load, extract metadata, check, split, fingerprint.

Nothing here writes. What is read becomes a ``ReadBatch`` that ``store_batch`` writes, so a caller
can read (and refuse bad input) before it creates a collection.

Files are never held whole: ``read_inputs`` reads each file, checks it and keeps a
``DocumentPlan`` per document (its ids and fingerprint), plus the documents of the first files up
to one write window (``keep`` chunks); writing takes those as they are and reads the other files
again one at a time (``FileDocuments``), so memory stays bounded by one file and the store's write
windows, whatever the corpus size, and an ingest of one window reads each file once. A file that
changed in between (a kept file: its size, modification time or inode differ) is read again, and
fails the write rather than storing a version nobody checked.

Which failures stop the run: a file named explicitly must load (else nothing is written, and the
error names the file); a file found by walking a folder that cannot be read — binary, not text,
a corrupt PDF, a malformed jsonl line, metadata the schema rejects — is skipped and reported with
its reason, and the rest of the folder is ingested (``strict`` makes those failures stop the run
too). Metadata precedence per document: what the input states (file-level and jsonl metadata) over
what the schema's extractors find; values are coerced to the schema's types here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from selfrag.errors import IngestError, UsageError
from selfrag.ingest.extract import MetadataExtractor
from selfrag.ingest.files import InputFile, InputFolder, Inputs
from selfrag.ingest.loaders import load_file
from selfrag.ingest.mentions import MentionExtractor
from selfrag.ingest.progress import StageProgress
from selfrag.ingest.split import Splitter
from selfrag.ingest.text import display_path
from selfrag.ingest.types import SkippedFile, SourceDocument
from selfrag.schema import CollectionSchema
from selfrag.settings import StoreSettings
from selfrag.store import DocumentPlan, DocumentVersion, clean_metadata

__all__ = ["FileDocuments", "ReadBatch", "prepare_documents", "read_inputs"]

_DEFAULTS = StoreSettings()
_FINGERPRINT_VERSION = 1


@dataclass
class ReadBatch:
    """Documents read and ready to store, and what was read to get them."""

    documents: Iterable[DocumentVersion] = field(default_factory=list)
    """The documents: a list when they were given in memory (``prepare_documents``), the files read
    again one at a time when they came from files (``FileDocuments``)."""
    plans: list[DocumentPlan] = field(default_factory=list)
    """One per document, in order: what checking them before any write needs."""
    files: int = 0
    """Files read (skipped ones excluded)."""
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each file read: its source → other names its documents were stored under before (an older
    selfrag stored the absolute path). Re-reading a file replaces *all* it held: stored documents of
    these sources that are not in the batch any more are removed."""
    seen: set[str] = field(default_factory=set)
    """Sources of every file found (read or skipped): what ``prune`` must keep."""
    skipped: list[SkippedFile] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    folders: list[InputFolder] = field(default_factory=list)

    @property
    def chunks(self) -> int:
        return sum(len(p.chunk_ids) for p in self.plans)


class _Preparer:
    """Turns source documents into document versions for one schema and one chunking."""

    def __init__(
        self, schema: CollectionSchema, chunk_size: int, chunk_overlap: int, mentions: MentionExtractor | None = None
    ) -> None:
        self.mentions = mentions
        try:
            self.splitter = Splitter(chunk_size, chunk_overlap)
        except ValueError as exc:
            raise UsageError(f"invalid chunking settings: {exc}") from None
        self.schema = schema
        self.extract = MetadataExtractor(schema)
        self.chunking = (chunk_size, chunk_overlap)

    def __call__(self, where: str, doc: SourceDocument) -> DocumentVersion:
        merged = {**self.extract(doc.text), **doc.metadata}
        if self.mentions is not None:
            merged.update(self.mentions(doc.text, merged))
        try:
            metadata = clean_metadata(merged, self.schema)
        except ValueError as exc:
            raise IngestError(f"{where}: {exc}") from None
        doc_id = doc.doc_id if doc.doc_id is not None else str(metadata.get("source", ""))
        if not doc_id:
            raise IngestError(f"{where}: the document has no id")
        # Everything the chunks derive from: the same fingerprint means nothing to re-embed.
        payload = [_FINGERPRINT_VERSION, doc.text, metadata, self.chunking, self.splitter.kind(metadata), doc.page_starts]
        fingerprint = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]
        chunks = self.splitter.split(SourceDocument(doc.text, metadata, doc_id, doc.page_starts, doc.line), metadata)
        if not chunks:
            raise IngestError(f"{where}: no text to store")
        return DocumentVersion(doc_id, fingerprint, tuple(chunks))


def read_inputs(
    schema: CollectionSchema,
    inputs: Inputs,
    *,
    strict: bool = False,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
    progress: StageProgress | None = None,
    mentions: MentionExtractor | None = None,
    keep: int = _DEFAULTS.write_batch_size,
) -> ReadBatch:
    """Read the files of ``inputs`` for a collection of ``schema``; ``progress("reading", done, total)``
    after each file. ``mentions`` fills the graph mention attributes a document's metadata lacks.
    The documents of the first files, up to ``keep`` chunks (the store's write window), are kept
    for the write instead of being read again (0: read every file again).

    Raises:
        IngestError: a named file (or, with ``strict``, any file) cannot be read, or nothing could be.
        UsageError: the chunk size and overlap are inconsistent.
    """
    prepare = _Preparer(schema, chunk_size, chunk_overlap, mentions)
    batch = ReadBatch(ignored=list(inputs.ignored), folders=list(inputs.folders))
    read: list[InputFile] = []
    origin: dict[str, str] = {}  # document id → the file it came from
    total = len(inputs.files)
    if progress is not None:
        progress("reading", 0, total)
    kept: dict[int, _Kept] = {}  # index in ``read`` → the file's documents, the first files only
    room = keep
    for done, file in enumerate(inputs.files, start=1):
        batch.seen.add(file.source)
        # Taken before reading: an edit during the read changes it, and the file is read again.
        signature = _signature(file.path) if room > 0 else None
        documents: list[DocumentVersion] | None = [] if signature is not None else None
        plans: list[DocumentPlan] = []
        chunks = 0
        try:
            for doc in _read(prepare, file, origin):
                plans.append(DocumentPlan.of(doc))
                chunks += len(doc.chunks)
                if documents is not None:
                    documents.append(doc)
                    if chunks > room:  # past the window: this file is read again
                        documents = None
        except IngestError as exc:
            if file.listed or strict:
                raise
            batch.skipped.append(SkippedFile(file.name, _reason(exc.one_line(), file.name)))
        else:
            batch.plans.extend(plans)
            origin.update((p.id, file.name) for p in plans)
            if documents is not None and signature is not None:
                kept[len(read)] = _Kept(signature, documents)
                room -= chunks
            else:
                room = 0  # only the first files: what is kept is the first window
            read.append(file)
            batch.sources[file.source] = _legacy_names(file.path)
        if progress is not None:
            progress("reading", done, total)
    if not batch.plans:
        first = batch.skipped[0] if batch.skipped else None
        why = f" (e.g. {first.name}: {first.reason})" if first else ""
        raise IngestError(f"nothing to ingest: no file could be read{why}")
    batch.files = len(read)
    batch.documents = FileDocuments(prepare, read, batch.plans, kept)
    return batch


@dataclass(frozen=True)
class _Kept:
    signature: tuple[int, int, int]
    documents: list[DocumentVersion]


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What changes when a file is edited, replaced or moved over: modification time, size, inode."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


class FileDocuments:
    """The documents of files already read and checked: those ``read_inputs`` kept (the first
    window), then the other files read again one at a time.

    Kept documents are handed out once, and only if their file looks unchanged (same modification
    time, size and inode); any other file is read again, by later iterations too. Each document
    must be the one planned (same id, fingerprint and chunk ids, in the same order): a file edited,
    removed or replaced since it was checked fails the iteration with an ``IngestError``.
    """

    def __init__(
        self,
        prepare: _Preparer,
        files: Sequence[InputFile],
        plans: Sequence[DocumentPlan],
        kept: dict[int, _Kept] | None = None,
    ) -> None:
        self._prepare = prepare
        self._files = list(files)
        self._plans = plans
        self._kept = dict(kept or {})

    def __iter__(self) -> Iterator[DocumentVersion]:
        expected = iter(self._plans)
        for index, file in enumerate(self._files):
            changed = f"{file.name} changed while it was being ingested; ingest it again"
            kept = self._kept.pop(index, None)  # released as it is handed out: memory stays a window
            if kept is not None and _signature(file.path) == kept.signature:
                for doc in kept.documents:
                    if DocumentPlan.of(doc) != next(expected, None):
                        raise IngestError(changed)
                    yield doc
                continue
            try:
                for doc in _read(self._prepare, file, {}):
                    if DocumentPlan.of(doc) != next(expected, None):
                        break
                    yield doc
                else:
                    continue
            except IngestError as exc:  # it cannot be read any more
                raise IngestError(changed) from exc
            raise IngestError(changed)
        if next(expected, None) is not None:
            raise IngestError("the files changed while they were being ingested; ingest them again")


def _legacy_names(path: Path) -> tuple[str, ...]:
    """The source an older selfrag stored for ``path``: its absolute path (only if printable: one
    that is not could never have been stored)."""
    name = str(path.resolve())
    return (name,) if display_path(name) == name else ()


def _reason(message: str, name: str) -> str:
    """The message without its leading file name (``name:7: x`` becomes ``line 7: x``)."""
    rest = message.removeprefix(name)
    if rest == message:
        return message
    line, sep, after = rest.lstrip(":").partition(":")
    if sep and line.strip().isdigit():
        return f"line {line.strip()}: {after.strip()}"
    return rest.lstrip(":").strip()


def _read(prepare: _Preparer, file: InputFile, origin: dict[str, str]) -> Iterator[DocumentVersion]:
    for doc in load_file(file.path, name=file.name, source=file.source):
        where = f"{file.name}:{doc.line}" if doc.line is not None else file.name
        version = prepare(where, doc)
        if version.id in origin:
            raise IngestError(f"{where}: document id {version.id!r} was already read from {origin[version.id]}")
        yield version


def prepare_documents(
    schema: CollectionSchema,
    documents: Iterable[SourceDocument],
    *,
    chunk_size: int = _DEFAULTS.chunk_size,
    chunk_overlap: int = _DEFAULTS.chunk_overlap,
    sources: Iterable[str] = (),
    mentions: MentionExtractor | None = None,
) -> ReadBatch:
    """Documents already in memory (the HTTP service's JSON documents and uploads), prepared like files.

    ``sources``: the files the documents were read from (uploads): storing the batch replaces all
    that each held. Errors name the document by its ``doc_id`` (or its position when it has none).

    Raises:
        IngestError: a document has bad metadata for the schema, or an id given twice.
        UsageError: the chunk size and overlap are inconsistent.
    """
    prepare = _Preparer(schema, chunk_size, chunk_overlap, mentions)
    docs: list[DocumentVersion] = []
    batch = ReadBatch(documents=docs, sources=dict.fromkeys(sources, ()))
    batch.files = len(batch.sources)
    seen: set[str] = set()
    for n, doc in enumerate(documents, 1):
        version = prepare(doc.doc_id or f"document {n}", doc)
        if version.id in seen:
            raise IngestError(f"document {n}: id {version.id!r} is given twice")
        seen.add(version.id)
        docs.append(version)
        batch.plans.append(DocumentPlan.of(version))
    return batch
