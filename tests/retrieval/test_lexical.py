"""BM25 retrieval over a real embedded Chroma: filters, exact replace/delete, persistence."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from chromadb.api import ClientAPI

from selfrag.errors import InvalidFilter, UsageError
from selfrag.retrieval import (
    ChromaChunkSource,
    LexicalEntry,
    LexicalIndex,
    LexicalIndexes,
    LexicalRetriever,
    lexical_terms,
)
from selfrag.store import Chunk, Collection
from tests.retrieval.conftest import movie_doc


class CountingSource(ChromaChunkSource):
    """The real source, counting the chunk texts it is asked to read."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read_ids: list[str] = []

    def read(self, ids: Sequence[str]) -> list[Chunk]:
        self.read_ids.extend(ids)
        return super().read(ids)


def source(client: ClientAPI, name: str = "movies") -> CountingSource:
    return CountingSource(client.get_collection(name))


def ids(hits: Sequence[Any]) -> list[str]:
    return [h.id for h in hits]


def test_terms_fold_like_the_self_query() -> None:
    # Lemma then the light plural stem (the self-query's normaliser), accents and case folded,
    # thousands separators dropped from numbers, function words out.
    assert lexical_terms("The Directors' revenues grew to 1,200 dollars in Zürich") == [
        "director", "revenue", "grow", "1200", "dollar", "zurich",
    ]
    assert lexical_terms("revenue") == lexical_terms("Revenues")
    assert lexical_terms("of the and") == []


def test_index_ranks_by_bm25_and_restricts_before_ranking() -> None:
    index = LexicalIndex(
        LexicalEntry(i, "1", tuple(lexical_terms(t)))
        for i, t in [("a", "dinosaur theme park"), ("b", "a space ranger toy"), ("c", "park ranger ranger"), ("d", "")]
    )
    assert ids(index.search("ranger", 5)) == ["c", "b"]  # term frequency counts; no shared term, no hit
    assert ids(index.search("ranger", 5, among=["b", "unknown"])) == ["b"]
    assert ids(index.search("ranger park", 1)) == ["c"]
    assert index.search("submarine", 5) == []
    assert index.search("", 5) == []
    index.delete(["c"])
    index.upsert([LexicalEntry("b", "2", tuple(lexical_terms("a sheriff doll")))])
    assert ids(index.search("ranger", 5)) == []
    assert ids(index.search("doll", 5)) == ["b"]
    with pytest.raises(ValueError):
        index.search("park", 0)


def test_search_without_and_with_a_filter(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    lexical = LexicalRetriever(source(chroma_client), LexicalIndexes(tmp_path / "lexical"))
    hits = lexical.search("wormhole astronauts", k=3)
    assert ids(hits) == ["interstellar"]
    assert hits[0].text.startswith("Astronauts travel") and hits[0].metadata["director"] == "Christopher Nolan"
    assert hits[0].score > 0

    assert set(ids(lexical.search("dreams space dinosaurs", k=5))) == {"inception", "alien", "jurassic-park", "toy-story"}
    # The filter is the collection's: only what it selects competes, and a selective one still gets its k.
    assert set(ids(lexical.search("dreams space dinosaurs", where={"year": {"$lt": 1990}}, k=5))) == {"alien"}
    nolan = {"director": {"$eq": "Christopher Nolan"}}
    assert ids(lexical.search("space dinosaurs", where=nolan, k=5)) == []
    assert ids(lexical.search("dreams", where={"$and": [nolan, {"year": {"$gt": 2012}}]}, k=5)) == []
    assert ids(lexical.search("dreams", where={"year": {"$gt": 2100}}, k=5)) == []
    with pytest.raises(InvalidFilter):
        lexical.search("dreams", where={"year": {"$between": [1, 2]}}, k=5)
    with pytest.raises(UsageError):
        lexical.search("dreams", k=0)


def test_replace_and_delete_are_exact(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    src = source(chroma_client)
    lexical = LexicalRetriever(src, indexes)
    assert ids(lexical.search("dinosaurs", k=4)) == ["jurassic-park"]

    movies.write_documents([movie_doc("jurassic-park", "A mathematician warns about chaos on an island.", 1993, "Steven Spielberg", "2")])
    movies.delete_document("alien")
    report = indexes.refresh(src)
    assert (report.added, report.replaced, report.removed) == (0, 1, 1)
    assert ids(lexical.search("dinosaurs", k=4)) == []
    assert ids(lexical.search("chaos mathematician", k=4)) == ["jurassic-park"]
    assert ids(lexical.search("Nostromo creature", k=4)) == []

    # A chunk written on its own (no document fingerprint) is versioned by its text.
    movies.add([Chunk("note", "A lone submarine under the ice.", {"year": 2000})])
    assert indexes.refresh(src).added == 1
    movies.add([Chunk("note", "A balloon over the desert.", {"year": 2000})])
    assert indexes.refresh(src).replaced == 1
    assert ids(lexical.search("submarine", k=4)) == [] and ids(lexical.search("balloon desert", k=4)) == ["note"]
    assert indexes.refresh(src).changed is False


def test_a_chunk_deleted_after_indexing_never_surfaces(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    indexes = LexicalIndexes(tmp_path / "lexical", max_age_s=None)
    lexical = LexicalRetriever(source(chroma_client), indexes)
    assert sorted(ids(lexical.search("wormhole dreams", k=4))) == ["inception", "interstellar"]
    movies.delete_document("interstellar")  # the index has not synced: hits are read back from the collection
    assert ids(lexical.search("wormhole dreams", k=4)) == ["inception"]


def test_saved_index_is_reused_and_a_bad_file_rebuilt(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    root = tmp_path / "lexical"
    first = source(chroma_client)
    LexicalIndexes(root).refresh(first)
    assert (root / "movies.json.gz").is_file() and len(first.read_ids) == len(movies.documents())

    again = source(chroma_client)  # a new process: the file is loaded, nothing re-read but the hits
    assert ids(LexicalRetriever(again, LexicalIndexes(root)).search("wormhole", k=2)) == ["interstellar"]
    assert again.read_ids == ["interstellar"]

    (root / "movies.json.gz").write_bytes(gzip.compress(b"{not json"))
    rebuilt = source(chroma_client)
    assert ids(LexicalRetriever(rebuilt, LexicalIndexes(root)).search("wormhole", k=2)) == ["interstellar"]
    assert len(rebuilt.read_ids) == len(movies.documents()) + 1

    LexicalIndexes(root).forget("movies")
    assert not (root / "movies.json.gz").exists()


def test_another_writer_is_seen_after_max_age(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    now = [0.0]
    indexes = LexicalIndexes(None, max_age_s=30.0, clock=lambda: now[0])
    lexical = LexicalRetriever(source(chroma_client), indexes)
    assert ids(lexical.search("submarine", k=2)) == []
    movies.write_documents([movie_doc("das-boot", "A submarine crew in the Atlantic.", 1981, "Wolfgang Petersen")])
    now[0] = 10.0
    assert ids(lexical.search("submarine", k=2)) == []  # within max_age: the index in memory answers
    now[0] = 31.0
    assert ids(lexical.search("submarine", k=2)) == ["das-boot"]
