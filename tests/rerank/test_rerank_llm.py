"""The ``llm`` reranker with a scripted chat model."""

from __future__ import annotations

import pytest
from langchain_core.messages import BaseMessage

from selfrag.errors import ProviderError
from selfrag.rerank import UNJUDGED, LLMReranker
from selfrag.testing import ScriptedChatModel

DOCS = ["a cat on a mat", "astronauts cross a wormhole", "a wormhole in fiction", "dinosaurs on an island"]


def judge(messages: list[BaseMessage]) -> str:
    passage = str(messages[-1].content).split("Passage:\n", 1)[1]
    score = 3 if "astronauts" in passage else 1 if "wormhole" in passage else 0
    return f'{{"score": {score}}}'


def test_orders_by_judgment_ties_in_retrieval_order() -> None:
    model = ScriptedChatModel.from_rules({"RerankJudgement": judge})
    ranking = LLMReranker(model).rerank("Which film has astronauts in a wormhole?", DOCS)
    assert [(r.index, r.score) for r in ranking] == [(1, 3.0), (2, 1.0), (0, 0.0), (3, 0.0)]
    calls = model.calls_for("RerankJudgement")
    assert len(calls) == 4 and all("Which film has astronauts" in c.prompt for c in calls)
    assert {c.prompt.split("Passage:\n")[1] for c in calls} == set(DOCS)


def test_drop_below_filters_and_top_n_cuts() -> None:
    model = ScriptedChatModel.from_rules({"RerankJudgement": judge})
    assert [r.index for r in LLMReranker(model, drop_below=1).rerank("q", DOCS)] == [1, 2]
    assert [r.index for r in LLMReranker(model).rerank("q", DOCS, top_n=1)] == [1]
    assert LLMReranker(model).rerank("q", []) == []


def test_a_bad_reply_is_retried_then_left_unjudged() -> None:
    seen: dict[str, int] = {}

    def flaky(messages: list[BaseMessage]) -> str:
        passage = str(messages[-1].content).split("Passage:\n", 1)[1]
        seen[passage] = seen.get(passage, 0) + 1
        if passage == DOCS[3]:
            return "not json at all"  # never valid
        if passage == DOCS[0] and seen[passage] == 1:
            return '{"score": 7}'  # out of range once, then fine
        return judge(messages)

    ranking = LLMReranker(ScriptedChatModel.from_rules({"RerankJudgement": flaky}), attempts=2).rerank("q", DOCS)
    assert [(r.index, r.score) for r in ranking] == [(1, 3.0), (3, UNJUDGED), (2, 1.0), (0, 0.0)]
    assert seen == {DOCS[0]: 2, DOCS[1]: 1, DOCS[2]: 1, DOCS[3]: 2}


def test_every_call_failing_is_an_error() -> None:
    model = ScriptedChatModel.from_rules({"RerankJudgement": ConnectionError("model server down")})
    with pytest.raises(ProviderError) as err:
        LLMReranker(model).rerank("q", DOCS)
    assert err.value.code == "provider_unavailable"
    assert err.value.one_line() == "the llm reranker got no valid judgment for any of 4 candidates"
    assert "model server down" in (err.value.detail or "")
