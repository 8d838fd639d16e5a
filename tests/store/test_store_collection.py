"""Adding, searching, reading and deleting chunks in a collection."""

from __future__ import annotations

import math
from typing import Any

import pytest

from selfrag.errors import ConfigError, IngestError, InvalidFilter, UsageError
from selfrag.schema import CollectionSchema
from selfrag.store import Chunk, Collection, SearchableCollection, Store
from selfrag.testing import HashEmbeddings

FILMS = [
    Chunk("jp", "A bunch of scientists bring back dinosaurs and mayhem breaks loose",
          {"year": 1993, "rating": 7.7, "genre": "science fiction"}),
    Chunk("inception", "Leo DiCaprio gets lost in a dream within a dream within a dream",
          {"year": 2010, "director": "Christopher Nolan", "rating": 8.2}),
    Chunk("paprika", "A psychologist detective gets lost in a series of dreams within dreams",
          {"year": 2006, "director": "Satoshi Kon", "rating": 8.6}),
    Chunk("toys", "Toys come alive and have a blast doing so", {"year": 1995, "genre": "animated"}),
    Chunk("stalker", "Three men walk into the Zone, three men walk out of the Zone",
          {"year": "1979", "director": "Andrei Tarkovsky", "genre": "thriller", "rating": "9.9"}),
]


@pytest.fixture
def movies(store: Store, movie_schema: CollectionSchema) -> Collection:
    collection = store.create_collection("movies", movie_schema)
    collection.add(FILMS)
    return collection


def test_collection_is_a_retriever(movies: Collection) -> None:
    assert isinstance(movies, SearchableCollection)


def test_add_is_idempotent_and_counts_new_ids(store: Store, movie_schema: CollectionSchema) -> None:
    collection = store.create_collection("movies", movie_schema)
    progress: list[tuple[int, int]] = []
    assert collection.add(FILMS, progress=lambda done, total: progress.append((done, total))) == 5
    assert progress == [(2, 5), (4, 5), (5, 5)]  # batch_size=2 in the store fixture
    assert collection.add(FILMS) == 0
    assert collection.add([*FILMS, Chunk("new", "a new film", {})]) == 1
    assert collection.count() == 6


def test_unchanged_chunks_are_not_re_embedded(movies: Collection, embeddings: Any) -> None:
    # ``embeddings`` is the conftest's CountingEmbeddings, shared with the store behind ``movies``.
    embeddings.embedded.clear()
    movies.add(FILMS)
    assert embeddings.embedded == []
    changed = Chunk("toys", FILMS[3].text, {"year": 1995, "genre": "animated", "rating": 8.3})
    movies.add([changed])
    assert embeddings.embedded == []  # a metadata-only change is written without embedding
    assert movies.get(["toys"])[0].metadata == {"year": 1995, "genre": "animated", "rating": 8.3}
    movies.add([Chunk("toys", FILMS[3].text, {"year": 1995})])
    assert movies.get(["toys"])[0].metadata == {"year": 1995}  # keys dropped, not merged


def test_metadata_is_coerced_to_schema_types(movies: Collection) -> None:
    stalker = movies.get(["stalker"])[0]
    assert stalker.metadata["year"] == 1979 and isinstance(stalker.metadata["year"], int)
    assert stalker.metadata["rating"] == 9.9
    assert [h.id for h in movies.search("men walk", where={"year": 1979}, k=5)] == ["stalker"]


def test_bad_metadata_fails_before_anything_is_written(movies: Collection) -> None:
    before = movies.count()
    with pytest.raises(IngestError, match="chunk bad: attribute 'year'"):
        movies.add([Chunk("fine", "a fine film", {"year": 2000}), Chunk("bad", "a bad one", {"year": "soon"})])
    assert movies.count() == before
    assert movies.get(["fine"]) == []


def test_catalogue_is_updated_and_stored_with_the_collection(store: Store, movies: Collection) -> None:
    expected = {
        "genre": ["animated", "science fiction", "thriller"],
        "director": ["Andrei Tarkovsky", "Christopher Nolan", "Satoshi Kon"],
    }
    assert movies.catalogue() == expected
    movies.add([Chunk("lw", "women are wholesome", {"director": "Greta Gerwig", "genre": "Animated"})])
    assert movies.known_values("director") == ["Andrei Tarkovsky", "Christopher Nolan", "Greta Gerwig", "Satoshi Kon"]
    assert movies.known_values("genre") == ["animated", "science fiction", "thriller"]
    assert movies.known_values("year") == []
    assert movies.catalogue_complete("genre")
    assert store.get_collection("movies").catalogue() == movies.catalogue()


def test_where_is_a_pre_filter(movies: Collection) -> None:
    hits = movies.search("dinosaurs", where={"year": {"$gt": 2000}}, k=10)
    assert {h.id for h in hits} == {"inception", "paprika"}
    hits = movies.search("dream", where={"$and": [{"year": {"$gt": 2000}}, {"director": "Satoshi Kon"}]}, k=1)
    assert [h.id for h in hits] == ["paprika"]
    assert movies.search("dream", where={"genre": "comedy"}, k=3) == []
    assert len(movies.search("dream", where={}, k=10)) == 5  # an empty filter means no filter


def test_scores_are_cosine_similarities_best_first(movies: Collection) -> None:
    hits = movies.search("dinosaurs mayhem", where=None, k=10)
    assert len(hits) == 5  # k capped at the collection size
    assert hits[0].id == "jp"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    emb = HashEmbeddings()
    q, d = emb.embed_query("dinosaurs mayhem"), emb.embed_query(FILMS[0].text)
    cosine = sum(a * b for a, b in zip(q, d, strict=False)) / (math.hypot(*q) * math.hypot(*d))
    assert hits[0].score == pytest.approx(cosine, abs=1e-5)
    assert hits[0].text == FILMS[0].text
    assert hits[0].metadata["genre"] == "science fiction"


def test_min_score_drops_weak_hits(movies: Collection) -> None:
    all_hits = movies.search("toys come alive", where=None, k=5)
    strong = movies.search("toys come alive", where=None, k=5, min_score=0.5)
    assert [h.id for h in strong] == ["toys"]
    assert len(all_hits) == 5
    assert movies.search("toys come alive", where=None, k=5, min_score=1.01) == []


def test_search_edge_cases(store: Store, movies: Collection) -> None:
    assert store.create_collection("empty", CollectionSchema()).search("x", where=None, k=3) == []
    with pytest.raises(UsageError, match="k must be at least 1"):
        movies.search("x", where=None, k=0)
    bad_filters: list[dict[str, Any]] = [
        {"year": {"$between": [1, 2]}},
        {"$bad": 1},
        {"$or": [{"year": 1}, {"$nope": 2}]},
        {"a": 1, "b": 2},
    ]
    for bad in bad_filters:
        with pytest.raises(InvalidFilter, match="invalid filter"):
            movies.search("x", where=bad, k=3)


def test_get_keeps_order_and_skips_unknown(movies: Collection) -> None:
    assert [c.id for c in movies.get(["toys", "missing", "jp", "toys"])] == ["toys", "jp"]
    assert movies.get([]) == []


def test_delete_counts_and_rebuilds_catalogue(movies: Collection) -> None:
    assert movies.delete(["stalker", "missing"]) == 1
    assert movies.delete(["missing"]) == 0
    assert movies.count() == 4
    assert movies.known_values("director") == ["Christopher Nolan", "Satoshi Kon"]
    assert movies.known_values("genre") == ["animated", "science fiction"]


def test_different_embeddings_dimension_is_a_config_error(chroma_client: object, movies: Collection) -> None:
    other = Store(chroma_client, HashEmbeddings(dim=64)).get_collection("movies")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="256-dimensional"):
        other.search("dinosaurs", where=None, k=1)
    with pytest.raises(ConfigError):
        other.add([Chunk("x", "new text", {})])
    assert movies.count() == 5


def test_deleted_collection_surfaces_as_not_found(store: Store, movies: Collection) -> None:
    from selfrag.errors import CollectionNotFound

    store.delete_collection("movies")
    with pytest.raises(CollectionNotFound):
        movies.count()


def test_empty_text_is_rejected(movies: Collection) -> None:
    with pytest.raises(IngestError, match="chunk blank has no text"):
        movies.add([Chunk("blank", "  \n", {})])


def test_a_list_element_is_forgotten_with_the_last_document_holding_it(store: Store) -> None:
    schema = CollectionSchema.model_validate({"attributes": [{"name": "ports", "type": "string[]"}]})
    laptops = store.create_collection("laptops", schema)
    laptops.add([Chunk("a", "Aero", {"ports": ["HDMI", "Thunderbolt 4"]}), Chunk("b", "Brisk", {"ports": ["HDMI"]})])
    assert laptops.known_values("ports") == ["HDMI", "Thunderbolt 4"]
    laptops.delete(["a"])
    assert laptops.known_values("ports") == ["HDMI"]  # Brisk still has HDMI
