"""Fusion: reciprocal rank and normalised scores, by hand-computed figures."""

from __future__ import annotations

import pytest

from selfrag.retrieval import (
    RankedList,
    SourceRank,
    fuse,
    normalized_score_fusion,
    reciprocal_rank_fusion,
)
from selfrag.store import Hit


def hits(*pairs: tuple[str, float]) -> list[Hit]:
    return [Hit(i, f"text of {i}", {"n": n}, s) for n, (i, s) in enumerate(pairs)]


DENSE = RankedList("dense", "movies", hits(("a", 0.9), ("b", 0.8), ("c", 0.1)))
LEXICAL = RankedList("lexical", "movies", hits(("c", 12.0), ("d", 6.0), ("a", 3.0)))


def test_rrf_sums_reciprocal_ranks_and_keeps_sources() -> None:
    fused = reciprocal_rank_fusion([DENSE, LEXICAL], rrf_k=60)
    assert [h.id for h in fused] == ["a", "c", "b", "d"]
    a, c = fused[0], fused[1]
    assert a.score == pytest.approx(1 / 61 + 1 / 63) and c.score == pytest.approx(1 / 63 + 1 / 61)
    # a and c tie on the sum and on their best single rank (1): the first seen wins.
    assert a.sources == (SourceRank("dense", 1, 0.9), SourceRank("lexical", 3, 3.0))
    assert a.rank_in("lexical") == 3 and fused[2].rank_in("lexical") is None
    assert a.resource == "movies" and a.text == "text of a" and a.metadata == {"n": 0}


def test_rrf_weights_limit_and_dedupe() -> None:
    weighted = reciprocal_rank_fusion([DENSE, LEXICAL._replace(weight=3.0)], limit=2)
    assert [h.id for h in weighted] == ["c", "a"]
    repeated = RankedList("dense", "movies", hits(("x", 0.9), ("x", 0.5), ("y", 0.4)))
    fused = reciprocal_rank_fusion([repeated])
    assert [(h.id, h.sources) for h in fused] == [("x", (SourceRank("dense", 1, 0.9),)), ("y", (SourceRank("dense", 2, 0.4),))]
    assert fused[1].score == pytest.approx(1 / 62)


def test_same_chunk_id_in_two_resources_stays_two_hits() -> None:
    other = RankedList("dense", "books", hits(("a", 0.95)))
    fused = fuse([DENSE, other], "rrf")
    assert [(h.resource, h.id) for h in fused][:2] == [("movies", "a"), ("books", "a")]


def test_min_max_fusion_keeps_margins() -> None:
    fused = normalized_score_fusion([DENSE, LEXICAL], method="min_max")
    # dense: a 1, b 0.875, c 0 ; lexical: c 1, d 1/3, a 0 ; a missing list gives its minimum (0).
    scores = {h.id: h.score for h in fused}
    assert scores == pytest.approx({"a": 1.0, "b": 0.875, "c": 1.0, "d": 1 / 3})
    assert [h.id for h in fused] == ["a", "c", "b", "d"]  # a, c tie at 1.0: best rank 1 both, a seen first


def test_z_fusion_gives_the_missing_their_lists_minimum() -> None:
    fused = normalized_score_fusion([DENSE, LEXICAL], method="z")
    dense_z = {"a": 0.9, "b": 0.8, "c": 0.1}
    mean = sum(dense_z.values()) / 3
    std = (sum((v - mean) ** 2 for v in dense_z.values()) / 3) ** 0.5
    lex = {"c": 12.0, "d": 6.0, "a": 3.0}
    lmean = sum(lex.values()) / 3
    lstd = (sum((v - lmean) ** 2 for v in lex.values()) / 3) ** 0.5
    z = {k: (v - mean) / std for k, v in dense_z.items()}
    lz = {k: (v - lmean) / lstd for k, v in lex.items()}
    expect = {
        "a": z["a"] + lz["a"],
        "b": z["b"] + min(lz.values()),
        "c": z["c"] + lz["c"],
        "d": min(z.values()) + lz["d"],
    }
    assert {h.id: h.score for h in fused} == pytest.approx(expect)
    assert [h.id for h in fused] == sorted(expect, key=lambda k: -expect[k])


def test_degenerate_lists() -> None:
    assert fuse([], "rrf") == [] and fuse([RankedList("dense", "m", [])], "z") == []
    flat = RankedList("lexical", "m", hits(("p", 2.0), ("q", 2.0)))
    assert [h.score for h in fuse([flat], "min_max")] == [1.0, 1.0]
    assert [h.score for h in fuse([flat], "z")] == [0.0, 0.0]
    with pytest.raises(ValueError):
        fuse([DENSE], "rrf", limit=0)
    with pytest.raises(ValueError):
        normalized_score_fusion([DENSE], method="l2")  # type: ignore[arg-type]
