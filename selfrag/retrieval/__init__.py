"""Hybrid retrieval: BM25 beside the dense search, and the fusion of ranked lists.

    indexes = LexicalIndexes(settings.home / "lexical")
    source = ChromaChunkSource(chroma_collection)
    indexes.refresh(source)                                   # after an ingest: apply what it logged
    hybrid = HybridRetriever(collection, LexicalRetriever(source, indexes), resource="movies")
    hits = hybrid.search("dinosaur theme park", where={"year": {"$lt": 2000}}, k=4)
    hits[0].rank_in("lexical")                                # every fused hit keeps its sources

The lexical side is SQLite FTS5 (standard library), one file per collection, changed a chunk at a
time: the embedded Chroma has no text ranking of its own (``lexical`` says why FTS5).
"""

from selfrag.retrieval.fusion import (
    RRF_K,
    FusedHit,
    FusionMethod,
    RankedList,
    SourceRank,
    fuse,
    normalized_score_fusion,
    reciprocal_rank_fusion,
)
from selfrag.retrieval.hybrid import DENSE, LEXICAL, HybridConfig, HybridRetriever, dense_only
from selfrag.retrieval.indexes import LexicalIndexes, SyncReport, catch_up, sync_index
from selfrag.retrieval.lexical import LexicalEntry, LexicalIndex, LexicalMatch
from selfrag.retrieval.lexical_search import LexicalRetriever
from selfrag.retrieval.terms import STOP_WORDS, TERMS_VERSION, lexical_terms
from selfrag.store.source import ChromaChunkSource, ChunkSource, chunk_version, text_version

__all__ = [
    "DENSE",
    "LEXICAL",
    "RRF_K",
    "STOP_WORDS",
    "TERMS_VERSION",
    "ChromaChunkSource",
    "ChunkSource",
    "FusedHit",
    "FusionMethod",
    "HybridConfig",
    "HybridRetriever",
    "LexicalEntry",
    "LexicalIndex",
    "LexicalIndexes",
    "LexicalMatch",
    "LexicalRetriever",
    "RankedList",
    "SourceRank",
    "SyncReport",
    "catch_up",
    "chunk_version",
    "dense_only",
    "fuse",
    "lexical_terms",
    "normalized_score_fusion",
    "reciprocal_rank_fusion",
    "sync_index",
    "text_version",
]
