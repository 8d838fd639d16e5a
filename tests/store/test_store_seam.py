"""The one seam the workflow reads the store through: Chroma and the fake both implement it."""

from __future__ import annotations

from selfrag.store import Chunk, CollectionSource, SearchableCollection
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
