"""Metrics and intervals on inputs small enough to check by hand."""

from __future__ import annotations

from typing import Any

import pytest

from eval.datasets import E2ECase
from eval.metrics import (
    ContainsReference,
    Correct,
    ExactMatch,
    FilterAccuracy,
    Groundedness,
    RecallAtK,
    ReciprocalRank,
    TokenF1,
    contains_reference,
    exact_match,
    is_chunk_of,
    normalize_answer,
    ranked_ids,
    recall_at_k,
    reciprocal_rank,
    same_selection,
    token_f1,
)
from eval.stats import bootstrap_mean, mean_interval, percentile, rate_interval, wilson
from eval.summary import summarize
from graders import GradeResult
from workflows.outcomes import Outcome, Result, Trace
from workflows.records import GeneratedAnswer, GradedDocument


def graded(id: str, query: str) -> GradedDocument:
    verdict = GradeResult(kind="relevance", passed=True, label="relevant", reason="", prompt_version="v", model="m", subject=id)
    return GradedDocument(id=id, metadata={}, score=0.5, query=query, relevant=True, grade=verdict.record())


def generated(grounded: bool) -> GeneratedAnswer:
    return GeneratedAnswer(number=1, answer="a", citations=[], documents=[], query="q", attempts=1, error=None,
                           grounded=grounded, useful=True, strategy="generate", citation_source="markers",
                           short_answer=None, probability=None, verified=None)


def result(answer: str = "", *, documents: list[GradedDocument] | None = None, where: Any = None,
           generations: list[GeneratedAnswer] | None = None) -> Result:
    return Result(
        question="q", standalone_question="q", collection="movies", answer=answer, outcome=Outcome.ANSWERED,
        trace=Trace(documents=documents or [], plan={"where": where}, generations=generations or []),
    )


def case(**fields: Any) -> E2ECase:
    return E2ECase.model_validate({"id": "c", "question": "q", "collection": "movies", **fields})


# -- answers ---------------------------------------------------------------------------------------
def test_squad_normalisation() -> None:
    assert normalize_answer("The  Cat, sat!") == "cat sat"
    assert normalize_answer("An apple a day") == "apple day"


def test_token_f1_by_hand() -> None:
    # "cat sat" vs "cat sat down": 2 common tokens, precision 2/2, recall 2/3 -> F1 = 2*(1*2/3)/(1+2/3) = 0.8
    assert token_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("the", "a") == 1.0  # both empty after normalisation


def test_citation_markers_do_not_count_as_words() -> None:
    assert exact_match("Paris [1].", "paris")
    assert token_f1("The capital is Berlin [1].", "Berlin") == pytest.approx(0.5)  # 1 common of 3 predicted


def test_contains_reference_matches_whole_tokens() -> None:
    assert contains_reference("It was released in 1993 [2].", "1993")
    assert not contains_reference("There is nothing", "no")
    assert not contains_reference("anything", "")


def test_answer_metrics_are_null_without_a_reference() -> None:
    r = result("Paris")
    for metric in (ExactMatch(), TokenF1(), ContainsReference()):
        assert metric.evaluate(case(), r).value is None
    assert ExactMatch().evaluate(case(reference_answer="paris"), r).value == 1.0
    assert TokenF1().evaluate(case(reference_answer="Paris, France"), r).value == pytest.approx(2 / 3)
    assert ContainsReference().evaluate(case(reference_answer="Lyon"), r).reason == "reference not found in the answer"


# -- retrieval -------------------------------------------------------------------------------------
def test_recall_and_mrr_on_a_made_up_ranking() -> None:
    ranked = ["d7", "d3:1", "d9", "d1", "d3"]
    gold = ["d3", "d1", "d8"]
    # top 4 = d7, d3:1 (a chunk of d3), d9, d1 -> d3 and d1 found, d8 not: 2/3
    assert recall_at_k(ranked, gold, 4) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, gold, 1) == 0.0
    # the first gold chunk is at rank 2
    assert reciprocal_rank(ranked, gold) == 0.5
    assert reciprocal_rank(["x", "y"], gold) == 0.0


def test_chunk_ids_map_to_their_document() -> None:
    assert is_chunk_of("d3", "d3") and is_chunk_of("d3:12", "d3")
    assert not is_chunk_of("d30", "d3") and not is_chunk_of("d3:x", "d3") and not is_chunk_of("d3:", "d3")


def test_ranking_is_the_first_retrieval_unless_asked_for_all() -> None:
    docs = [graded("a", "q1"), graded("b", "q1"), graded("gold", "q2 rewritten")]
    r = result(documents=docs)
    assert ranked_ids(r) == ["a", "b"]
    assert ranked_ids(r, "all") == ["a", "b", "gold"]
    c = case(gold_ids=["gold"])
    assert RecallAtK(4).evaluate(c, r).value == 0.0
    assert RecallAtK(4, scope="all").evaluate(c, r).value == 1.0
    assert RecallAtK(4, scope="all").name == "recall_at_4_all"
    assert ReciprocalRank(scope="all").evaluate(c, r).value == pytest.approx(1 / 3)
    assert RecallAtK(4).evaluate(case(), r).value is None  # no gold ids


# -- filters ---------------------------------------------------------------------------------------
METADATA = {
    "toys": {"genre": "animated", "year": 1995},
    "dino": {"genre": "science fiction", "year": 1993},
    "dream": {"genre": "animated", "year": 2006},
}


def lookup(name: str) -> dict[str, dict[str, Any]]:
    assert name == "movies"
    return METADATA


def test_syntactically_different_filters_selecting_the_same_documents_are_correct() -> None:
    expected = {"$and": [{"year": 1995}, {"genre": "animated"}]}
    produced = {"$and": [{"year": {"$gt": 1994}}, {"year": {"$lt": 2000}}]}  # other attribute, same selection: {toys}
    assert same_selection(expected, produced, METADATA)
    value = FilterAccuracy(lookup).evaluate(case(expected_filter=expected), result(where=produced))
    assert value.value == 1.0 and "same 1 of 3" in value.reason


def test_a_filter_selecting_other_documents_is_wrong() -> None:
    value = FilterAccuracy(lookup).evaluate(case(expected_filter={"year": 1995}), result(where={"genre": "animated"}))
    assert value.value == 0.0
    assert value.reason == "expected selects 1, produced 2 of 3 chunks (0 missed, 1 extra)"


def test_a_filter_chroma_refuses_is_unscored_when_expected_and_wrong_when_produced() -> None:
    two_operators = {"year": {"$gt": 1994, "$lt": 2000}}  # Chroma wants one operator per condition
    value = FilterAccuracy(lookup).evaluate(case(expected_filter=two_operators), result(where={"year": 1995}))
    assert value.value is None and "expected filter is not one Chroma accepts" in value.reason
    value = FilterAccuracy(lookup).evaluate(case(expected_filter={"year": 1995}), result(where=two_operators))
    assert value.value == 0.0 and "produced filter is not one Chroma accepts" in value.reason


def test_filter_accuracy_nulls_and_absences() -> None:
    def unavailable(name: str) -> None:
        return None

    # both null: correct without reading any metadata
    assert FilterAccuracy(unavailable).evaluate(case(expected_filter=None), result()).value == 1.0
    # the dataset line does not mention expected_filter: nothing to compare against
    assert FilterAccuracy(lookup).evaluate(case(), result(where={"year": 1995})).value is None
    # "no filter expected" vs a filter that happens to select everything: same selection
    assert FilterAccuracy(lookup).evaluate(case(expected_filter=None), result(where={"year": {"$gt": 1900}})).value == 1.0
    assert FilterAccuracy(lookup).evaluate(case(expected_filter=None), result(where={"year": 1995})).value == 0.0
    assert FilterAccuracy(unavailable).evaluate(case(expected_filter=None), result(where={"year": 1995})).value is None


def test_groundedness_is_the_last_generations_verdict() -> None:
    assert Groundedness().evaluate(case(), result(generations=[generated(False), generated(True)])).value == 1.0
    assert Groundedness().evaluate(case(), result(generations=[generated(True), generated(False)])).value == 0.0
    assert Groundedness().evaluate(case(), result()).value is None


# -- intervals -------------------------------------------------------------------------------------
def test_wilson_interval_for_8_of_10() -> None:
    interval = wilson(8, 10)
    assert interval.value == 0.8
    assert (round(interval.ci_low, 3), round(interval.ci_high, 3)) == (0.490, 0.943)


def test_wilson_stays_inside_the_unit_interval() -> None:
    assert wilson(0, 10).ci_low == 0.0 and wilson(10, 10).ci_high == 1.0
    with pytest.raises(ValueError):
        wilson(3, 0)


def test_percentiles_interpolate_linearly() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([float(x) for x in range(1, 21)], 95) == pytest.approx(19.05)  # position 19 * 0.95 = 18.05
    assert percentile([7.0], 95) == 7.0


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75]
    a, b = bootstrap_mean(values, seed=1), bootstrap_mean(values, seed=1)
    assert a == b
    assert a.value == pytest.approx(3.5 / 6)
    assert a.ci_low < a.value < a.ci_high
    assert bootstrap_mean([0.4, 0.4]) == (0.4, 0.4, 0.4, 2)


def test_rates_and_means_skip_nulls() -> None:
    interval = rate_interval([1.0, None, 0.0, 1.0])
    assert interval is not None and interval.n == 3 and interval.value == pytest.approx(2 / 3)
    assert rate_interval([None]) is None and mean_interval([]) is None
    with pytest.raises(ValueError):
        rate_interval([0.5])


def test_summary_leaves_failed_cases_out_of_every_metric() -> None:
    records: list[dict[str, Any]] = [
        {"id": "a", "outcome": "answered", "answer_exact": 1.0, "answer_f1": 1.0, "latency_s": 1.0, "llm_calls": 4, "tokens": 10, "cache_hits": 4},
        {"id": "b", "outcome": "abstained", "answer_exact": 0.0, "answer_f1": 0.5, "latency_s": 3.0, "llm_calls": 2, "tokens": 20, "cache_hits": 0},
        {"id": "c", "outcome": None, "latency_s": 9.0, "cache_hits": 0, "error": "RuntimeError: boom"},
    ]
    s = summarize(records)
    assert (s["cases"], s["errors"]) == (3, 1)
    assert s["answer_exact"]["value"] == 0.5 and s["answer_exact"]["n"] == 2
    assert s["answer_f1"]["value"] == 0.75
    assert s["recall_at_4"] is None and s["filter_accuracy"] is None
    assert s["outcomes"] == {"answered": 1, "unverified": 0, "abstained": 1, "ungrounded": 0, "budget_exhausted": 0,
                             "no_progress": 0, "needs_clarification": 0}
    assert set(s["outcome_rates"]["ungrounded"]) == {"value", "ci_low", "ci_high", "n"}
    assert (s["latency_p50_s"], s["latency_p95_s"]) == (2.0, 2.9)
    assert (s["llm_calls_per_case"], s["tokens_per_case"]) == (3.0, 15.0)
    assert s["cache"] == {"hits": 4, "model_calls": 2}


# -- the reader's short answer and wrong among answered ------------------------------------------------
def test_exact_match_and_f1_score_the_short_answer_not_the_quote_after_it() -> None:
    r = result("Prince. The album is by Prince and The Revolution [1].").model_copy(update={"short_answer": "Prince"})
    c = case(reference_answer="Prince")
    assert ExactMatch().evaluate(c, r).value == 1.0 and TokenF1().evaluate(c, r).value == 1.0
    assert ExactMatch().evaluate(c, result("Prince. The album is by Prince [1].")).value == 0.0  # no short answer


def test_a_correct_short_answer_contains_or_overlaps_the_reference() -> None:
    c = case(reference_answer="Prince and The Revolution")
    short = result("x").model_copy(update={"short_answer": "Prince and The Revolution band"})
    wrong = result("Prince and The Revolution made it [1]").model_copy(update={"short_answer": "Michael Jackson"})
    assert Correct().evaluate(c, short).value == 1.0
    assert Correct().evaluate(c, wrong).value == 0.0  # the quote names it; the answer does not


def test_wrong_among_answered_counts_only_answered_cases_with_a_reference() -> None:
    records = [
        {"id": "a", "outcome": "answered", "answer_correct": 1.0, "latency_s": 1.0},
        {"id": "b", "outcome": "answered", "answer_correct": 0.0, "latency_s": 1.0},
        {"id": "c", "outcome": "unverified", "answer_correct": 0.0, "latency_s": 1.0},
        {"id": "d", "outcome": "answered", "answer_correct": None, "latency_s": 1.0},
    ]
    s = summarize(records)
    assert s["wrong_among_answered"]["value"] == 0.5 and s["wrong_among_answered"]["n"] == 2
