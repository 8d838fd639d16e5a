"""The fast paths keep exact results: length-sorted embedding, large writes, exact filtered search."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pytest
from chromadb.api import ClientAPI

from selfrag.schema import AttributeInfo, CollectionSchema, IndexParams
from selfrag.settings import HnswSettings, StoreSettings
from selfrag.store import Chunk, Collection, DocumentVersion, Store
from selfrag.testing import HashEmbeddings, matches_where
from tests.store.conftest import CountingEmbeddings

SCHEMA = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="genre", type="string")])
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau"]


def text(i: int) -> str:
    # Lengths vary a lot and out of order, so sorting by length really reorders the batch.
    return " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(1 + (i * 37) % 23)) + f" n{i}"


def corpus(n: int) -> list[Chunk]:
    return [Chunk(f"c{i}", text(i), {"year": 1990 + i % 30, "genre": ["noir", "drama", "comedy"][i % 3]}) for i in range(n)]


def brute_force(chunks: list[Chunk], query: str, where: dict[str, Any] | None, k: int) -> list[tuple[str, float]]:
    emb = HashEmbeddings()
    q = np.asarray(emb.embed_query(query))
    scored = []
    for c in chunks:
        if matches_where(c.metadata, where):
            v = np.asarray(emb.embed_query(c.text))
            scored.append((c.id, float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))))
    scored.sort(key=lambda p: -p[1])
    return scored[:k]


def test_sorted_embedding_stores_each_text_with_its_own_vector(chroma_client: ClientAPI) -> None:
    embeddings = CountingEmbeddings()
    store = Store(chroma_client, embeddings, batch_size=3, store=StoreSettings(write_batch_size=5))
    coll = store.create_collection("speed", SCHEMA)
    docs = [DocumentVersion(f"d{n}", "v1", tuple(corpus(40)[n * 4 : n * 4 + 4])) for n in range(10)]
    docs = [DocumentVersion(d.id, d.fingerprint, tuple(Chunk(f"{d.id}:{c.id}", c.text, c.metadata) for c in d.chunks)) for d in docs]
    written = coll.write_documents(docs)
    assert written.embedded == 40 and len(written.added) == 10
    # The embeddings saw the texts grouped by length, not in document order...
    assert embeddings.embedded != [c.text for d in docs for c in d.chunks]
    # ...yet every stored vector is the one of its own text.
    got = coll._chroma.get(include=["embeddings", "documents"])
    reference = HashEmbeddings()
    for doc, vector in zip(got["documents"] or [], got["embeddings"] if got["embeddings"] is not None else [], strict=True):
        assert np.allclose(vector, reference.embed_query(doc or ""), atol=1e-6)
    # A new version replaces every old chunk exactly, across write batches.
    shorter = DocumentVersion("d0", "v2", (Chunk("d0:c0", "a new first chunk", {"year": 2001, "genre": "noir"}),))
    again = coll.write_documents([shorter, *docs[1:]])
    assert again.replaced == ("d0",) and set(again.unchanged) == {d.id for d in docs[1:]}
    assert sorted(c for c in coll.chunks_of("d0")) == ["d0:c0"]
    assert coll.count() == 37


def loaded(chroma_client: ClientAPI, exact_limit: int, n: int) -> tuple[Collection, list[Chunk]]:
    """A collection of ``n`` generated chunks on a store whose exact-search limit is ``exact_limit``."""
    store = Store(chroma_client, HashEmbeddings(), store=StoreSettings(exact_search_limit=exact_limit))
    coll = store.create_collection("speed", SCHEMA)
    chunks = corpus(n)
    coll.add(chunks)
    return coll, chunks


@pytest.mark.parametrize("exact_limit", [0, 10, 1000])
def test_filtered_search_is_exact_whichever_path_serves_it(chroma_client: ClientAPI, exact_limit: int) -> None:
    coll, chunks = loaded(chroma_client, exact_limit, 300)
    for where in ({"genre": "noir"}, {"$and": [{"genre": "drama"}, {"year": {"$gte": 2015}}]}, {"year": 1999}):
        expected = brute_force(chunks, "gamma delta n7", where, 4)
        every = dict(brute_force(chunks, "gamma delta n7", where, len(chunks)))
        hits = coll.search("gamma delta n7", where=where, k=4)
        # The true top 4 (ties may swap places): the same scores, each hit scored as it truly is.
        assert all(math.isclose(h.score, s, abs_tol=1e-4) for h, (_, s) in zip(hits, expected, strict=True))
        assert all(math.isclose(h.score, every[h.id], abs_tol=1e-4) for h in hits)
        assert all(matches_where(h.metadata, where) for h in hits)
        assert hits[0].text == next(c.text for c in chunks if c.id == hits[0].id)


def test_search_of_an_empty_or_small_collection(chroma_client: ClientAPI) -> None:
    coll: Collection = Store(chroma_client, HashEmbeddings()).create_collection("speed", SCHEMA)
    assert coll.search("anything", k=4) == []
    assert coll.search("anything", where={"genre": "noir"}, k=4) == []
    coll.add(corpus(3))
    assert len(coll.search("anything", k=10)) == 3
    assert [h.metadata["genre"] for h in coll.search("anything", where={"genre": "noir"}, k=10)] == ["noir"]


def test_index_parameters_come_from_settings_then_the_schema(chroma_client: ClientAPI) -> None:
    settings = StoreSettings(hnsw=HnswSettings(ef_search=321, ef_construction=123, max_neighbors=24))
    store = Store(chroma_client, HashEmbeddings(), store=settings)
    plain = store.create_collection("plain", SCHEMA)
    pinned = store.create_collection("pinned", SCHEMA.model_copy(update={"index": IndexParams(ef_search=50)}))
    hnsw = plain._chroma.configuration_json["hnsw"]
    assert (hnsw["space"], hnsw["ef_search"], hnsw["ef_construction"], hnsw["max_neighbors"]) == ("cosine", 321, 123, 24)
    hnsw = pinned._chroma.configuration_json["hnsw"]
    assert (hnsw["ef_search"], hnsw["ef_construction"]) == (50, 123)
    assert store.get_collection("pinned").schema.index == IndexParams(ef_search=50)


class _Recorder:
    """A Chroma collection that records the filters it evaluates and can act after the first one."""

    def __init__(self, chroma: Any, after_filter: Any = None) -> None:
        self._chroma = chroma
        self.filters: list[Any] = []
        self._after = after_filter

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chroma, name)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        result = self._chroma.get(*args, **kwargs)
        if kwargs.get("where") is not None:
            self.filters.append(kwargs["where"])
            if self._after is not None:
                self._after(self._chroma)
                self._after = None
        return result

    def query(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("where") is not None:
            self.filters.append(kwargs["where"])
        return self._chroma.query(*args, **kwargs)


@pytest.mark.parametrize("exact_limit", [0, 10, 1000])
def test_a_filtered_search_evaluates_its_filter_once(chroma_client: ClientAPI, exact_limit: int) -> None:
    coll, chunks = loaded(chroma_client, exact_limit, 200)
    recorder = _Recorder(coll._chroma)
    coll._chroma = cast(Any, recorder)
    where = {"genre": "noir"}
    hits = coll.search("gamma delta n7", where=where, k=4)
    expected = brute_force(chunks, "gamma delta n7", where, 4)
    assert all(math.isclose(h.score, s, abs_tol=1e-4) for h, (_, s) in zip(hits, expected, strict=True))
    assert recorder.filters == [where]


@pytest.mark.parametrize("exact_limit", [0, 1000])
def test_a_chunk_deleted_between_filtering_and_ranking_is_left_out(chroma_client: ClientAPI, exact_limit: int) -> None:
    store = Store(chroma_client, HashEmbeddings(), store=StoreSettings(exact_search_limit=exact_limit))
    coll = store.create_collection("speed", SCHEMA)
    chunks = corpus(60)
    coll.add(chunks)
    where = {"genre": "noir"}
    best = brute_force(chunks, "gamma delta n7", where, 1)[0][0]
    coll._chroma = cast(Any, _Recorder(coll._chroma, after_filter=lambda chroma: chroma.delete(ids=[best])))
    hits = coll.search("gamma delta n7", where=where, k=4)
    left = [c for c in chunks if c.id != best]
    expected = brute_force(left, "gamma delta n7", where, 4)
    assert best not in {h.id for h in hits} and len(hits) == 4
    assert all(math.isclose(h.score, s, abs_tol=1e-4) for h, (_, s) in zip(hits, expected, strict=True))
