"""The stage shared by every backend: retrieve wide, rerank, keep top n; the ``none`` backend."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from selfrag.errors import ProviderError
from selfrag.rerank import NoReranker, Reranked, Reranker, rerank_hits, retrieve_and_rerank
from selfrag.retrieval import FusedHit, SourceRank


def fused(*texts: str) -> list[FusedHit]:
    return [
        FusedHit(f"c{i}", t, {"i": i}, 1.0 / (i + 1), "docs", (SourceRank("dense", i + 1, 0.5),))
        for i, t in enumerate(texts)
    ]


class ByLength:
    """Prefers longer texts: a deterministic stand-in with a visible rule."""

    name = "by_length"

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        order = sorted(range(len(documents)), key=lambda i: -len(documents[i]))
        return [Reranked(i, float(len(documents[i]))) for i in order][:top_n]


class Broken:
    name = "broken"

    def __init__(self, ranking: list[Reranked]) -> None:
        self.ranking = ranking

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        return self.ranking


def test_retrieve_wide_rerank_keep_top_n() -> None:
    asked: list[int] = []

    def search(n: int) -> list[FusedHit]:
        asked.append(n)
        return fused("a", "bbbb", "cc", "ddd", "e", "ffffff")[:n]

    top = retrieve_and_rerank(search, ByLength(), "q", k=2, factor=3)
    assert asked == [6]
    assert [(r.hit.id, r.score, r.before) for r in top] == [("c5", 6.0, 6), ("c1", 4.0, 2)]
    assert top[0].hit.resource == "docs" and top[0].hit.sources[0].rank == 6
    assert isinstance(ByLength(), Reranker) and isinstance(NoReranker(), Reranker)
    with pytest.raises(ValueError):
        retrieve_and_rerank(search, ByLength(), "q", k=2, factor=0)


def test_none_keeps_the_order() -> None:
    hits = fused("a", "bbbb", "cc")
    assert [(r.hit.id, r.before) for r in rerank_hits(NoReranker(), "q", hits, 2)] == [("c0", 1), ("c1", 2)]
    assert rerank_hits(NoReranker(), "q", [], 3) == []


@pytest.mark.parametrize("ranking", [[Reranked(0, 1.0), Reranked(0, 0.5)], [Reranked(3, 1.0)], [Reranked(-1, 1.0)]])
def test_a_ranking_that_is_not_one_is_an_error(ranking: list[Reranked]) -> None:
    with pytest.raises(ProviderError) as err:
        rerank_hits(Broken(ranking), "q", fused("a", "b", "c"), 2)
    assert err.value.code == "provider_unavailable" and "\n" not in err.value.one_line()
