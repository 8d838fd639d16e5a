"""A private embedded Chroma per test, written through the project's own store (real ingest semantics)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest
from chromadb.api import ClientAPI

from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.store import Chunk, Collection, DocumentVersion, Store, chroma_settings
from selfrag.testing import HashEmbeddings

MOVIES = {
    "jurassic-park": ("Scientists clone dinosaurs for a theme park on a remote island.", 1993, "Steven Spielberg"),
    "toy-story": ("A cowboy doll is threatened by a new space ranger toy.", 1995, "John Lasseter"),
    "interstellar": ("Astronauts travel through a wormhole near Saturn to find a new home.", 2014, "Christopher Nolan"),
    "inception": ("A thief enters dreams to plant an idea; the dreams collapse layer by layer.", 2010, "Christopher Nolan"),
    "alien": ("The crew of the Nostromo meets a deadly creature in deep space.", 1979, "Ridley Scott"),
}


def movie_doc(doc_id: str, text: str, year: int, director: str, version: str = "1") -> DocumentVersion:
    meta = {"year": year, "director": director}
    return DocumentVersion(doc_id, f"{doc_id}-{version}", (Chunk(doc_id, text, meta),))


@pytest.fixture
def chroma_client(tmp_path: Path) -> Iterator[ClientAPI]:
    client = chromadb.PersistentClient(path=tmp_path / "chroma", settings=chroma_settings())
    yield client
    client.close()  # type: ignore[attr-defined]


@pytest.fixture
def movies(chroma_client: ClientAPI) -> Collection:
    schema = CollectionSchema(
        description="films",
        attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="director", type="string")],
    )
    collection = Store(chroma_client, HashEmbeddings()).create_collection("movies", schema)
    collection.write_documents(movie_doc(i, t, y, d) for i, (t, y, d) in MOVIES.items())
    return collection
