"""Vector storage: collections of embedded chunks with a declared metadata schema, on Chroma.

    store = Store.from_settings(settings, embeddings)
    movies = store.create_collection("movies", schema, exist_ok=True)
    movies.add([Chunk(id, text, {"year": 1993})])
    hits = movies.search("dinosaurs", where={"year": {"$lt": 2000}}, k=4)
"""

from selfrag.store.backends import STORES, StoreFactory, open_backend
from selfrag.store.catalogue import MAX_VALUE_LENGTH, MAX_VALUES, Catalogue
from selfrag.store.changes import CHANGES_KEY, ChangeEntry, ChangeLog, ChangeMark
from selfrag.store.client import Store, chroma_settings, validate_collection_name
from selfrag.store.collection import Collection
from selfrag.store.lock import StoreLock, StoreUse, lock_store
from selfrag.store.metadata import clean_metadata, coerce_attribute, coerce_value
from selfrag.store.source import VERSION_KEY, ChromaChunkSource, ChunkSource, chunk_version, text_version
from selfrag.store.types import (
    Chunk,
    CollectionSource,
    DocumentPlan,
    DocumentsWritten,
    DocumentVersion,
    Hit,
    MetadataValue,
    ProgressCallback,
    SearchableCollection,
    StoredDocument,
    WritableCollection,
)

__all__ = [
    "CHANGES_KEY",
    "MAX_VALUES",
    "MAX_VALUE_LENGTH",
    "STORES",
    "VERSION_KEY",
    "Catalogue",
    "ChangeEntry",
    "ChangeLog",
    "ChangeMark",
    "ChromaChunkSource",
    "Chunk",
    "ChunkSource",
    "Collection",
    "CollectionSource",
    "DocumentPlan",
    "DocumentVersion",
    "DocumentsWritten",
    "Hit",
    "MetadataValue",
    "ProgressCallback",
    "SearchableCollection",
    "Store",
    "StoreFactory",
    "StoreLock",
    "StoreUse",
    "StoredDocument",
    "WritableCollection",
    "chroma_settings",
    "chunk_version",
    "clean_metadata",
    "coerce_attribute",
    "coerce_value",
    "lock_store",
    "open_backend",
    "text_version",
    "validate_collection_name",
]
