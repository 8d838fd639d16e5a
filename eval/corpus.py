"""The collections an evaluation searches: built from a case's documents, or already in the store.

A case names its corpus in one of three ways:

- ``documents`` inline: the documents are the case's own corpus. They go into a collection named
  ``eval-<hash>``, the hash covering the documents, the embeddings and the chunking, so cases with
  the same documents share it, a rerun finds it ready, and a change of embeddings never meets
  vectors of another size.
- ``documents_file`` plus ``collection``: a shared corpus file ingested into that collection.
- ``collection`` alone: an existing collection, used as it is.

Building is idempotent: ``create_collection(exist_ok=True)`` with the same inferred schema, and
``Collection.add`` skips chunks already stored. Documents are split like ``selfrag ingest`` splits
a jsonl record, so a long document's chunks are ``<id>``, ``<id>:1``, ... (see ``eval.metrics``).

The schema is inferred from the documents' metadata: each key becomes an attribute of the type
its values share (integers mixed with floats are floats; anything else mixed is a string).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.datasets import Document, E2ECase, load_documents
from selfrag.ingest import SourceDocument, Splitter
from selfrag.schema import AttributeInfo, AttributeType, CollectionSchema
from selfrag.settings import Settings
from selfrag.store import Chunk, Store, clean_metadata

__all__ = ["CorpusSpec", "MetadataCache", "build_corpus", "corpus_for", "infer_schema", "stored_metadata"]

_KIND: dict[type, AttributeType] = {bool: "boolean", int: "integer", float: "float", str: "string"}


@dataclass(frozen=True)
class CorpusSpec:
    """Where one case's documents come from and which collection holds them."""

    collection: str
    documents: Sequence[Document] | None = None
    """None for an existing collection (nothing to build)."""
    source: str = ""
    """``inline``, the documents file's path, or empty for an existing collection."""


def infer_schema(documents: Sequence[Document], description: str = "Evaluation documents") -> CollectionSchema:
    """An attribute per metadata key, typed by its values; keys that are not identifiers stay undeclared."""
    kinds: dict[str, set[AttributeType]] = {}
    for doc in documents:
        for key, value in doc.metadata.items():
            kinds.setdefault(key, set()).add(_KIND.get(type(value), "string"))
    attributes = []
    for key in sorted(kinds):
        found = kinds[key]
        type_: AttributeType = found.pop() if len(found) == 1 else "float" if found == {"integer", "float"} else "string"
        try:
            attributes.append(AttributeInfo(name=key, type=type_))
        except ValueError:
            continue  # e.g. "release-year": kept on the chunks, just not offered to the self-query step
    return CollectionSchema(description=description, attributes=attributes)


def _chunks(documents: Sequence[Document], schema: CollectionSchema, settings: Settings) -> list[Chunk]:
    splitter = Splitter(settings.store.chunk_size, settings.store.chunk_overlap)
    out: list[Chunk] = []
    for doc in documents:
        metadata = clean_metadata(doc.metadata, schema)
        out.extend(splitter.split(SourceDocument(doc.text, metadata, doc_id=doc.id), metadata))
    return out


def _inline_name(documents: Sequence[Document], settings: Settings) -> str:
    payload = {
        "documents": [d.model_dump(mode="json") for d in documents],
        "embeddings": [settings.embeddings.provider, settings.embeddings.model],
        "chunking": [settings.store.chunk_size, settings.store.chunk_overlap],
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()
    return f"eval-{digest[:24]}"


def corpus_for(case: E2ECase, settings: Settings, dataset: str | Path | None, files: dict[Path, list[Document]]) -> CorpusSpec:
    """The corpus of ``case``; ``files`` memoises documents files read so far (path → documents).

    Raises:
        DatasetError: the case's documents file is missing or invalid.
    """
    if case.documents:
        return CorpusSpec(_inline_name(case.documents, settings), case.documents, "inline")
    assert case.collection is not None  # the dataset validates: a collection or documents
    if case.documents_file:
        base = Path(dataset).parent if dataset is not None else Path.cwd()
        path = (base / case.documents_file).resolve()  # as ``E2ECase.documents_path`` resolves it
        if path not in files:
            files[path] = load_documents(path)
        return CorpusSpec(case.collection, files[path], str(path))
    return CorpusSpec(case.collection)


def build_corpus(store: Store, spec: CorpusSpec, settings: Settings) -> dict[str, dict[str, Any]] | None:
    """Create and fill the collection of ``spec`` (if it has documents); return its chunks' metadata.

    Raises:
        CollectionExists: a collection of that name exists with another schema.
        SelfRagError: the store or the embeddings failed.
    """
    if spec.documents is None:
        return None
    schema = infer_schema(spec.documents)
    collection = store.create_collection(spec.collection, schema, exist_ok=True)
    chunks = _chunks(spec.documents, schema, settings)
    collection.add(chunks)
    return {c.id: dict(c.metadata) for c in chunks}


def stored_metadata(collection: Any) -> dict[str, dict[str, Any]] | None:
    """Every stored chunk's metadata, by id; None when the collection does not expose it.

    ``selfrag.store.Collection`` has no public listing, so this reads its Chroma collection
    (paged); ``FakeCollection`` keeps its documents in ``docs``.
    """
    docs = getattr(collection, "docs", None)
    if isinstance(docs, list):
        return {str(d["id"]): dict(d.get("metadata", {})) for d in docs}
    chroma = getattr(collection, "_chroma", None)
    if chroma is None:
        return None
    out: dict[str, dict[str, Any]] = {}
    offset, page = 0, 1000
    while True:
        found = chroma.get(include=["metadatas"], limit=page, offset=offset)
        for i, meta in zip(found["ids"], found["metadatas"] or [], strict=False):
            out[str(i)] = dict(meta or {})
        if len(found["ids"]) < page:
            return out
        offset += page


class MetadataCache:
    """Collection name → stored metadata, read at most once per run (thread-safe)."""

    def __init__(self, store: Any, known: Mapping[str, dict[str, dict[str, Any]]] | None = None) -> None:
        self._store = store
        self._known: dict[str, dict[str, dict[str, Any]] | None] = dict(known or {})
        self._lock = threading.Lock()

    def __call__(self, name: str) -> dict[str, dict[str, Any]] | None:
        with self._lock:
            if name not in self._known:
                try:
                    self._known[name] = stored_metadata(self._store.get_collection(name))
                except Exception:  # a metric must not fail the case; None says "unknown"
                    self._known[name] = None
            return self._known[name]
