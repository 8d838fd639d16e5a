"""Merging ranked lists (dense, lexical, several resources) into one: pure functions.

Two families, both deduplicating by (resource, chunk id) and keeping, for every fused hit, where it
came from (each retriever's rank and score) and its resource's name:

- **Reciprocal rank fusion** (Cormack et al., 2009): ``score = Σ weight / (rrf_k + rank)``. Uses ranks
  only, so lists whose scores are not comparable (cosine similarity, BM25) fuse without calibration.
- **Normalised score fusion**: each list's scores are normalised (``min_max`` to [0, 1], or ``z`` to
  mean 0 / deviation 1) then summed with weights. Keeps how *much* better a hit scored, which RRF
  discards; a hit missing from a list gets that list's lowest normalised score (it ranked below
  everything the list returned).

Which one the engine uses by default is measured by ``bench/retrieval_quality.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from selfrag.store import Hit, MetadataValue

__all__ = [
    "RRF_K",
    "FusedHit",
    "FusionMethod",
    "RankedList",
    "SourceRank",
    "fuse",
    "normalized_score_fusion",
    "reciprocal_rank_fusion",
]

RRF_K = 60
"""The constant of the original paper and of most engines (Elasticsearch, OpenSearch, Azure)."""

FusionMethod = Literal["rrf", "min_max", "z"]


class RankedList(NamedTuple):
    """One retriever's answer for one resource, best first."""

    retriever: str
    """Which retriever produced it (``dense``, ``lexical``, a user retriever's name)."""
    resource: str
    """The resource (collection) its hits come from."""
    hits: Sequence[Hit]
    weight: float = 1.0
    """This list's share in the fused score."""


class SourceRank(NamedTuple):
    """Where a fused hit stood in one of the lists it came from."""

    retriever: str
    rank: int
    """1-based rank in that list."""
    score: float
    """That retriever's own score (cosine similarity, BM25, ...)."""


@dataclass(frozen=True)
class FusedHit:
    """A chunk after fusion: one per (resource, chunk id)."""

    id: str
    text: str
    metadata: Mapping[str, MetadataValue]
    score: float
    """The fused score; only its order means something (RRF and normalised scores differ in scale)."""
    resource: str
    sources: tuple[SourceRank, ...]
    """Every list it was found in, in the order the lists were given."""

    def rank_in(self, retriever: str) -> int | None:
        """Its rank in ``retriever``'s list, or None when that retriever did not return it."""
        return next((s.rank for s in self.sources if s.retriever == retriever), None)


def reciprocal_rank_fusion(
    lists: Sequence[RankedList], *, rrf_k: int = RRF_K, limit: int | None = None
) -> list[FusedHit]:
    """Fuse by reciprocal rank: ``Σ weight / (rrf_k + rank)`` over the lists a hit appears in.

    Args:
        lists: The ranked lists; a hit repeated within one list counts at its best rank.
        rrf_k: Damps the weight of the very top ranks (larger: flatter).
        limit: Keep at most this many fused hits (None: all).
    """
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be at least 0, got {rrf_k}")

    def contribution(ranked: RankedList, rank: int, _norm: Sequence[float]) -> float:
        return ranked.weight / (rrf_k + rank)

    return _fuse(lists, contribution, missing=lambda _ranked, _norm: 0.0, normalize=None, limit=limit)


def normalized_score_fusion(
    lists: Sequence[RankedList], *, method: Literal["min_max", "z"] = "min_max", limit: int | None = None
) -> list[FusedHit]:
    """Fuse by normalised scores: each list's scores normalised (``min_max`` or ``z``), weighted, summed.

    A hit absent from a list gets that list's lowest normalised score; an empty list adds nothing.
    """
    if method not in ("min_max", "z"):
        raise ValueError(f"unknown normalisation {method!r} (min_max or z)")
    normalize = _min_max if method == "min_max" else _z_scores

    def contribution(ranked: RankedList, rank: int, norm: Sequence[float]) -> float:
        return ranked.weight * norm[rank - 1]

    def missing(ranked: RankedList, norm: Sequence[float]) -> float:
        return ranked.weight * min(norm) if norm else 0.0

    return _fuse(lists, contribution, missing=missing, normalize=normalize, limit=limit)


def fuse(
    lists: Sequence[RankedList], method: FusionMethod = "rrf", *, rrf_k: int = RRF_K, limit: int | None = None
) -> list[FusedHit]:
    """Fuse with ``method``: ``rrf`` (reciprocal rank), ``min_max`` or ``z`` (normalised scores)."""
    if method == "rrf":
        return reciprocal_rank_fusion(lists, rrf_k=rrf_k, limit=limit)
    return normalized_score_fusion(lists, method=method, limit=limit)


def _min_max(scores: Sequence[float]) -> list[float]:
    lo, hi = min(scores), max(scores)
    if hi - lo <= 0:
        return [1.0] * len(scores)  # all equal: each is the list's best
    return [(s - lo) / (hi - lo) for s in scores]


def _z_scores(scores: Sequence[float]) -> list[float]:
    mean = sum(scores) / len(scores)
    std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    if std <= 0:
        return [0.0] * len(scores)
    return [(s - mean) / std for s in scores]


class _Acc:
    __slots__ = ("best_rank", "first", "hit", "resource", "score", "sources")

    def __init__(self, hit: Hit, resource: str, first: int) -> None:
        self.hit = hit
        self.resource = resource
        self.first = first
        self.score = 0.0
        self.best_rank = math.inf
        self.sources: list[SourceRank] = []


def _fuse(
    lists: Sequence[RankedList],
    contribution: Callable[[RankedList, int, Sequence[float]], float],
    *,
    missing: Callable[[RankedList, Sequence[float]], float],
    normalize: Callable[[Sequence[float]], list[float]] | None,
    limit: int | None,
) -> list[FusedHit]:
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    acc: dict[tuple[str, str], _Acc] = {}
    seen_in: list[set[tuple[str, str]]] = []
    norms: list[list[float]] = []
    for ranked in lists:
        hits = _dedupe(ranked.hits)
        norm = normalize([h.score for h in hits]) if normalize is not None and hits else []
        norms.append(norm)
        keys: set[tuple[str, str]] = set()
        for rank, hit in enumerate(hits, start=1):
            key = (ranked.resource, hit.id)
            keys.add(key)
            entry = acc.get(key)
            if entry is None:
                entry = acc[key] = _Acc(hit, ranked.resource, len(acc))
            entry.score += contribution(ranked, rank, norm)
            entry.best_rank = min(entry.best_rank, rank)
            entry.sources.append(SourceRank(ranked.retriever, rank, hit.score))
        seen_in.append(keys)
    for ranked, norm, keys in zip(lists, norms, seen_in, strict=True):
        if not norm:
            continue
        for key, entry in acc.items():
            if key not in keys:
                entry.score += missing(ranked, norm)
    # Best fused score first; ties go to the better single rank, then to the first seen.
    ordered = sorted(acc.values(), key=lambda e: (-e.score, e.best_rank, e.first))
    if limit is not None:
        ordered = ordered[:limit]
    return [
        FusedHit(e.hit.id, e.hit.text, e.hit.metadata, e.score, e.resource, tuple(e.sources)) for e in ordered
    ]


def _dedupe(hits: Sequence[Hit]) -> list[Hit]:
    """Each chunk once, at its first (best) place."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit.id not in seen:
            seen.add(hit.id)
            out.append(hit)
    return out
