"""Hybrid retrieval: dense (the store's collection) and BM25 over one real Chroma collection, fused."""

from __future__ import annotations

from pathlib import Path

from chromadb.api import ClientAPI

from selfrag.retrieval import ChromaChunkSource, HybridConfig, HybridRetriever, LexicalIndexes, LexicalRetriever
from selfrag.store import Chunk, Collection


def test_hybrid_finds_what_only_one_side_ranks_and_keeps_both_ranks(
    tmp_path: Path, chroma_client: ClientAPI, movies: Collection
) -> None:
    # A part number: hashed bag-of-words embeddings of the query land nowhere near it, BM25 matches it.
    movies.add([Chunk("manual", "Spare part XJ9000 for the projector.", {"year": 2001, "director": "none"})])
    lexical = LexicalRetriever(ChromaChunkSource(chroma_client.get_collection("movies")), LexicalIndexes(tmp_path))
    for fusion in ("rrf", "min_max", "z"):
        hybrid = HybridRetriever(movies, lexical, resource="movies", config=HybridConfig(fusion=fusion, depth=6))  # type: ignore[arg-type]
        fused = hybrid.search("where is XJ9000 sold", k=6)
        manual = next(h for h in fused if h.id == "manual")
        assert manual.rank_in("lexical") == 1 and manual.resource == "movies"
        assert {s.retriever for h in fused for s in h.sources} == {"dense", "lexical"}
        assert len({h.id for h in fused}) == len(fused)

    dense_only = HybridRetriever(movies, None, resource="movies")
    assert all(h.sources[0].retriever == "dense" for h in dense_only.search("wormhole", k=2))


def test_hybrid_applies_the_filter_on_both_sides(tmp_path: Path, chroma_client: ClientAPI, movies: Collection) -> None:
    lexical = LexicalRetriever(ChromaChunkSource(chroma_client.get_collection("movies")), LexicalIndexes(tmp_path))
    hybrid = HybridRetriever(movies, lexical, resource="movies", config=HybridConfig(depth=5))
    fused = hybrid.search("space dreams dinosaurs", where={"director": "Christopher Nolan"}, k=5)
    assert {h.id for h in fused} == {"interstellar", "inception"}
    assert all(h.metadata["director"] == "Christopher Nolan" for h in fused)
