"""A relaxed filter no longer holds the question's conditions: documents are judged on the whole question.

Bug (companies dev set, "Layoffs at competitors of Halvard Motors this year"): the topic and the
date became the filter, the search text kept neither; the filter found nothing and was relaxed
until both were dropped, yet the critic was still asked about the search text alone, so a
competitor's article about staff morale was judged relevant to a question about layoffs.
"""

from __future__ import annotations

from typing import Any

from graders import Combine, GraderConfig
from selfrag.testing import ScriptedJudge, reading_of
from tests.workflows.conftest import FAST, hits, sequence_search
from workflows import Outcome, RunOptions

CRITIC = GraderConfig(retry=FAST, combine=Combine.SIGNAL)
THRESHOLDS = {"reader": 0.6, "relevance": 0.5, "support": 0.5, "usefulness": 0.5}


def _nothing_from(year: str) -> Any:
    """A collection holding no movie of ``year``: a filter naming it finds nothing."""
    def fn(query: str, where: Any, k: int) -> list[Any]:
        return [] if year in str(where) else hits("toys", "dream")
    return fn


def _engine(make_engine: Any, asked: list[str], relevance: float, missing: str = "1979") -> Any:
    def score(task: str, first: str, second: str) -> float:
        if task == "relevance":
            asked.append(first)
            return relevance
        return 0.9

    judge = ScriptedJudge(score, lambda q, passages: reading_of("have a blast", passages), thresholds=THRESHOLDS)
    engine, _, _ = make_engine({}, judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                               extractive_only=True, rules_only_text=True, search_fn=_nothing_from(missing),
                               options=RunOptions(max_rewrites=0))
    return engine


def test_after_a_relaxation_documents_are_judged_on_the_whole_question(make_engine: Any) -> None:
    asked: list[str] = []
    engine = _engine(make_engine, asked, relevance=0.9)
    result = engine.run("Which animated movie from 1979 has toys that come alive?", collection="movies")
    assert any("1979" in r["detail"] for r in result.trace.relaxations)
    assert asked and all("1979" in a for a in asked)  # the dropped condition is judged from the text



def test_a_rewritten_search_text_does_not_change_what_documents_must_address(make_engine: Any) -> None:
    # Bug (companies dev set): after a rewrite, the search text was the question's words again,
    # the filter's conditions included ("Rod Halverson sits board ..."), and the next documents were
    # judged against it: whatever the graph filter selected looked off-topic.
    asked: list[str] = []

    def score(task: str, first: str, second: str) -> float:
        if task == "relevance":
            asked.append(first)
        return 0.1 if task == "relevance" else 0.9

    judge = ScriptedJudge(score, lambda q, passages: reading_of("have a blast", passages), thresholds=THRESHOLDS)
    engine, _, _ = make_engine({}, judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                               extractive_only=True, rules_only_text=True,
                               search_fn=sequence_search(["toys"], ["dream"]), options=RunOptions(max_rewrites=1))
    result = engine.run("Which animated movie has toys that come alive?", collection="movies")
    assert result.trace.rewrites and result.trace.rewrites[0]["to"] != result.trace.rewrites[0]["from"]
    assert len(asked) == 2 and asked[0] == asked[1] and "animated" not in asked[1]


def test_an_answer_found_only_by_dropping_conditions_is_never_signed(make_engine: Any) -> None:
    # Bug (a new user's release notes, "What is the maximum message size in Tessera 3.2?"): no
    # Tessera 3.2 exists, the search dropped `product == Tessera` to find anything, and Harborlight
    # 3.2's figure was signed `answered`, reader, critic and all passing. Every document such a
    # search returns fails a condition the question stated.
    engine = _engine(make_engine, [], relevance=0.9, missing="animated")
    result = engine.run("Which animated movie has toys that come alive?", collection="movies")
    assert result.trace.relaxations
    assert result.outcome is Outcome.UNVERIFIED and result.answer  # the best candidate is still shown
    conditions = [v for v in result.trace.verdicts if v["kind"] == "conditions"]
    assert conditions and not conditions[-1]["passed"] and conditions[-1]["model"] == "deterministic"
    assert "genre eq 'animated'" in conditions[-1]["reason"] and "not what was asked" in conditions[-1]["reason"]
    assert "dropped" in result.trace.stop_reason and "animated" in result.trace.stop_reason


def test_a_bound_the_filter_holds_need_not_be_stated_by_the_document(make_engine: Any) -> None:
    # Bug (a new user's museum catalogue, "Which objects were acquired after 1990 and are in room
    # 4?"): the claim the critic judges is "question + short answer", and the figure guard asked
    # the cited document to state 1990, a bound the filter held and no document states: every
    # question with a numeric condition ended `ungrounded`. A figure of the question not in its
    # search text is the filter's; one in the search text is still the document's to state.
    judge = ScriptedJudge(lambda task, first, second: 0.9, lambda q, passages: reading_of("have a blast", passages),
                          thresholds=THRESHOLDS)
    engine, _, _ = make_engine({}, judge=judge, relevance=CRITIC, groundedness=CRITIC, usefulness=CRITIC,
                               extractive_only=True, rules_only_text=True, search_fn=lambda q, w, k: hits("toys"),
                               options=RunOptions(max_rewrites=0))
    result = engine.run("Which animated movie made after 1990 has toys that come alive?", collection="movies")
    assert result.trace.plan["where"] is not None and "1990" in str(result.trace.plan["where"])
    assert not result.trace.relaxations
    grounded = [v for v in result.trace.verdicts if v["kind"] == "groundedness"]
    assert grounded and grounded[-1]["passed"], grounded
    assert result.outcome is Outcome.ANSWERED
