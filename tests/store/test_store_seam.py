"""The one seam the workflow reads the store through: Chroma and the fake both implement it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chromadb

from selfrag.store import Chunk, CollectionSource, SearchableCollection, WritableCollection, chroma_settings
from selfrag.testing import FakeCollection, FakeStore
from tests.workflows.conftest import DOCS, SCHEMA


def test_the_fake_store_implements_the_seam() -> None:
    fake = FakeCollection("movies", SCHEMA, list(DOCS.values()))
    coll: SearchableCollection = fake  # checked by mypy, as the isinstance below checks at run time
    store: CollectionSource = FakeStore(fake)
    assert isinstance(coll, SearchableCollection) and isinstance(store, CollectionSource)
    assert store.get_collection("movies") is coll
    assert coll.count() == len(DOCS)
    first = next(iter(DOCS.values()))
    assert coll.get([first["id"], "missing", first["id"]]) == [Chunk(first["id"], first["text"], dict(first["metadata"]))]
    assert [h.id for h in coll.search(first["text"], where=None, k=1)] == [first["id"]]


def test_the_lexical_side_comes_from_the_store_protocol_not_from_its_internals(tmp_path: Path) -> None:
    """Issue 28 item 5: hybrid search reached into ``Collection._chroma`` behind an ``isinstance``,
    so any other store (here a wrapper around the Chroma one) was searched dense only. The lexical
    source is now a method of ``SearchableCollection``."""
    from selfrag.retrieval import LexicalIndexes, LexicalRetriever
    from selfrag.schema import CollectionSchema
    from selfrag.store import ChunkSource, Store
    from selfrag.testing import HashEmbeddings
    from workflows.retrieval import chunk_source

    store = Store(chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=chroma_settings()), HashEmbeddings())
    movies = store.create_collection("movies", CollectionSchema())
    movies.add([Chunk("a", "a velociraptor escapes the park"), Chunk("b", "a quiet drama about bees")])
    writer: WritableCollection = movies  # the writing side, as ingest types it (mypy checks the assignment)
    assert isinstance(writer, WritableCollection) and not isinstance(FakeCollection("x", SCHEMA), WritableCollection)

    class Wrapped:
        """Another store's collection: the Chroma one behind a wrapper (no ``Collection`` subclass)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(movies, name)

        def lexical_source(self) -> ChunkSource | None:
            return movies.lexical_source()

    source = chunk_source(Wrapped())
    assert source is not None and source.name == "movies"
    hits = LexicalRetriever(source, LexicalIndexes(tmp_path / "lexical")).search("velociraptor", k=2)
    assert [h.id for h in hits] == ["a"]
    assert chunk_source(FakeCollection("movies", SCHEMA)) is None  # the fake says it has none
    assert chunk_source(object()) is None
