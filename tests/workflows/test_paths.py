"""Every path through the graph, scripted end to end with fake models."""

from __future__ import annotations

from typing import Any

from graders import FailurePolicy, GraderConfig
from selfrag.testing import ScriptedJudge, reading_of
from tests.workflows.conftest import FAST, answer, grade, relevant_if, sequence_search
from workflows import Outcome, RunOptions

Q = "Which movie is about toys coming alive?"


def good_checks() -> dict[str, Any]:
    return {"GroundednessGrade": grade("grounded"), "UsefulnessGrade": grade("useful")}


def test_relevant_documents_are_answered_with_citations(make_engine: Any) -> None:
    engine, model, _ = make_engine({
        "RelevanceGrade": relevant_if("Toys"),
        "generate": answer("Toys come alive in it [1].", [1]),
        **good_checks(),
    }, search_fn=sequence_search(["toys", "dino"]))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.answer == "Toys come alive in it [1]."
    assert [c.id for c in result.citations] == ["toys"]
    assert result.citations[0].number == 1
    assert result.trace.path == ["condense", "self_query", "retrieve", "grade_documents", "generate", "check", "finalize"]
    grades = {d["id"]: d["relevant"] for d in result.trace.documents}
    assert grades == {"toys": True, "dino": False}
    # only the relevant document reaches the generator
    gen_prompt = model.calls_for("generate")[0].prompt
    assert "Toys come alive" in gen_prompt and "dinosaurs" not in gen_prompt
    assert result.trace.llm.calls == len(model.calls) == 5


def test_nothing_relevant_rewrites_then_answers(make_engine: Any) -> None:
    engine, model, coll = make_engine({
        "RelevanceGrade": relevant_if("Toys"),
        "rewrite": ["toys that come alive"],
        "generate": answer("Toys come alive [1]."),
        **good_checks(),
    }, search_fn=sequence_search(["dino", "zone"], ["toys"]))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.trace.path == [
        "condense", "self_query", "retrieve", "grade_documents", "rewrite", "retrieve", "grade_documents",
        "generate", "check", "finalize",
    ]
    assert result.trace.rewrites[0]["to"] == "toys that come alive"
    assert coll.searches[1][0] == "toys that come alive"
    assert result.trace.budgets["rewrites_used"] == 1


def test_nothing_ever_relevant_abstains_without_generating(make_engine: Any) -> None:
    engine, model, _ = make_engine({
        "RelevanceGrade": grade("irrelevant"),
        # Rewrites that stay on the question: the rules' fallback rewrite alternates between the
        # question and its stripped words, and the first search is now the question itself.
        "rewrite": ["movie where toys are coming alive", "film about toys that come alive"],
    }, search_fn=sequence_search(["dino"], ["zone"], ["dream"]))
    result = engine.run(Q, collection="movies")
    assert [r["source"] for r in result.trace.rewrites] == ["llm", "llm"]
    assert result.outcome is Outcome.ABSTAINED
    assert "I don't know" in result.answer
    assert result.citations == []
    assert model.calls_for("generate") == []
    assert result.trace.budgets["rewrites_used"] == 2
    assert result.trace.path.count("retrieve") == 3


def test_ungrounded_answer_is_regenerated_with_feedback(make_engine: Any) -> None:
    engine, model, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": [answer("Toys fight aliens [1]."), answer("Toys come alive [1].")],
        "GroundednessGrade": [grade("ungrounded", "aliens are not mentioned"), grade("grounded")],
        "UsefulnessGrade": grade("useful"),
    }, search_fn=sequence_search(["toys"]), extractive_fallback=False)
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.answer == "Toys come alive [1]."
    assert result.trace.path.count("generate") == 2
    second = model.calls_for("generate")[1].prompt
    assert "aliens are not mentioned" in second


def test_last_generation_after_ungrounded_ones_is_the_reader_s_answer(make_engine: Any) -> None:
    judge = ScriptedJudge(read=lambda q, passages: reading_of("Toys come alive", passages))
    engine, model, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": answer("Toys fight aliens [1]."),
        "GroundednessGrade": [grade("ungrounded"), grade("grounded")],
        "UsefulnessGrade": grade("useful"),
    }, search_fn=sequence_search(["toys", "dino"]), options=RunOptions(max_generations=2), judge=judge)
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.answer.startswith("Toys come alive. Toys come alive and have a blast doing so.")
    assert "[1]" in result.answer and "dinosaurs" not in result.answer
    assert [g["strategy"] for g in result.trace.generations] == ["llm", "reader"]
    assert [c.id for c in result.citations] == ["toys"] and result.short_answer == "Toys come alive"
    assert len(model.calls_for("generate")) == 1  # the reader costs no model call
    assert len(model.calls_for("GroundednessGrade")) == 2  # and is checked like any answer


def test_answer_without_markers_gets_citations_from_the_critic(make_engine: Any) -> None:
    judge = ScriptedJudge(lambda task, first, second: 0.9 if "dinosaurs" in second else 0.1)
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": "Scientists bring back dinosaurs.",
        **good_checks(),
    }, search_fn=sequence_search(["toys", "dino"]), judge=judge)
    result = engine.run("Which movie brings back dinosaurs?", collection="movies")
    assert [c.id for c in result.citations] == ["dino"]
    assert result.trace.generations[0]["citation_source"] == "attributed"


def test_not_useful_answer_rewrites_and_retrieves_again(make_engine: Any) -> None:
    engine, model, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "rewrite": ["movies where toys come alive"],
        "generate": [answer("It is a movie [1]."), answer("Toy Story: toys come alive [1].")],
        "GroundednessGrade": grade("grounded"),
        "UsefulnessGrade": [grade("not_useful"), grade("useful")],
    }, search_fn=sequence_search(["dream"], ["toys"]))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.trace.path == [
        "condense", "self_query", "retrieve", "grade_documents", "generate", "check", "rewrite", "retrieve",
        "grade_documents", "generate", "check", "finalize",
    ]
    assert result.trace.rewrites[0]["reason"] == "the answer did not address the question"


def test_never_useful_exhausts_budget_and_keeps_best_answer(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "rewrite": ["toys rewrite one", "toys rewrite two"],
        "generate": answer("Something vague [1]."),
        "GroundednessGrade": grade("grounded"),
        "UsefulnessGrade": grade("not_useful"),
    }, search_fn=sequence_search(["dino"], ["zone"], ["dream"]), options=RunOptions(max_rewrites=1, max_generations=3))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.BUDGET_EXHAUSTED
    assert result.answer == "Something vague [1]."
    assert result.trace.budgets["rewrites_used"] == 1
    assert result.trace.path.count("generate") == 2


def test_never_grounded_ends_ungrounded_after_generation_budget(make_engine: Any) -> None:
    engine, model, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": answer("Made up [1]."),
        "GroundednessGrade": grade("ungrounded"),
        "UsefulnessGrade": grade("useful"),
    }, search_fn=sequence_search(["toys"]), options=RunOptions(max_generations=2), extractive_fallback=False)
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.UNGROUNDED
    assert result.answer == "Made up [1]."
    assert len(model.calls_for("generate")) == 2


def test_rewrite_repeating_a_query_stops_for_no_progress(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("irrelevant"),
        "rewrite": ["toys q1", "toys q1"],
    }, search_fn=sequence_search(["dino"], ["zone"], ["dream"]), options=RunOptions(max_rewrites=5))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ABSTAINED
    assert result.trace.stop_reason is not None and "repeated" in result.trace.stop_reason
    assert result.trace.budgets["rewrites_used"] == 2


def test_same_documents_again_stops_for_no_progress(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("irrelevant"),
        "rewrite": ["toys q1", "toys q2", "toys q3"],
    }, search_fn=sequence_search(["dino", "zone"]), options=RunOptions(max_rewrites=5))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ABSTAINED
    assert "same documents" in (result.trace.stop_reason or "")
    assert result.trace.path.count("retrieve") == 2


def test_grader_failure_fails_closed_and_is_recorded(make_engine: Any) -> None:
    def relevance(messages: list[Any]) -> str:
        doc = str(messages[-1].content).split("<document>", 1)[-1]
        return "not json at all" if "Toys" in doc else grade("irrelevant")

    engine, model, _ = make_engine({"RelevanceGrade": relevance, "rewrite": ["toys again"]},
                                   search_fn=sequence_search(["toys"], ["zone"]), options=RunOptions(max_rewrites=1))
    result = engine.run(Q, collection="movies")
    toys = next(d for d in result.trace.documents if d["id"] == "toys")
    assert toys["grade"]["failed"] and not toys["relevant"] and toys["grade"]["attempts"] == FAST.attempts
    assert "fail_closed" in toys["grade"]["reason"]
    assert result.outcome is Outcome.ABSTAINED
    assert sum(1 for c in model.calls_for("RelevanceGrade") if "Toys" in c.prompt) == FAST.attempts


def test_grader_failure_fail_open_policy_lets_the_document_through(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": "garbage",
        "generate": answer("Toys come alive [1]."),
        **good_checks(),
    }, search_fn=sequence_search(["toys"]), relevance=GraderConfig(policy=FailurePolicy.FAIL_OPEN, retry=FAST))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.ANSWERED
    assert result.trace.documents[0]["grade"]["failed"] and result.trace.documents[0]["relevant"]


def test_unverifiable_answer_is_ungrounded_by_default(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": answer("Toys come alive [1]."),
        "GroundednessGrade": ValueError("the server refused this prompt"),  # it answered: no outage
        "UsefulnessGrade": grade("useful"),
    }, search_fn=sequence_search(["toys"]), options=RunOptions(max_generations=1))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.UNGROUNDED
    g = next(v for v in result.trace.verdicts if v["kind"] == "groundedness")
    assert g["failed"] and "ValueError" in g["error"]


def test_large_budgets_never_raise_recursion_errors(make_engine: Any) -> None:
    from selfrag.store.types import Hit

    counter = {"n": 0}

    def fresh(query: str, where: Any, k: int) -> list[Hit]:
        counter["n"] += 1  # a new document every search, so no-progress never stops the loop
        return [Hit(id=f"d{counter['n']}", text=f"document {counter['n']}", metadata={}, score=0.5)]

    engine, _, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "rewrite": [f"toys coming alive rewrite {i}" for i in range(20)],
        "generate": answer("Vague [1]."),
        "GroundednessGrade": grade("grounded"),
        "UsefulnessGrade": grade("not_useful"),
    }, search_fn=fresh, options=RunOptions(max_rewrites=10, max_generations=10))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.BUDGET_EXHAUSTED
    assert result.trace.budgets["rewrites_used"] == 9  # the 10th generation spends the generation budget
    assert result.trace.path.count("generate") == 10


def test_every_generation_failing_still_gives_a_flagged_non_empty_answer(make_engine: Any) -> None:
    engine, _, _ = make_engine({
        "RelevanceGrade": grade("relevant"),
        "generate": ValueError("model refused"),  # it answered, badly (a model server down is an error: tests/resilience)
    }, search_fn=sequence_search(["toys"]), options=RunOptions(max_generations=1))
    result = engine.run(Q, collection="movies")
    assert result.outcome is Outcome.UNGROUNDED
    assert result.answer.startswith("I couldn't produce an answer")
    assert "ValueError" not in result.answer and "model refused" not in result.answer  # never exception text
    assert result.trace.generations[-1]["error"] == "ValueError: model refused"  # the trace says why
    assert result.citations == []


def _toys_engine(make_engine: Any) -> tuple[Any, Any]:
    """The happy toys path: five model calls when nothing caps them."""
    engine, model, _ = make_engine({
        "RelevanceGrade": relevant_if("Toys"),
        "generate": answer("Toys come alive in it [1].", [1]),
        **good_checks(),
    }, search_fn=sequence_search(["toys", "dino"]))
    return engine, model


def test_a_run_past_its_model_call_cap_ends_budget_exhausted_never_answered(make_engine: Any) -> None:
    # Issue 25 item 6: a cap on model calls per run. The fourth call (the groundedness check) is
    # refused before it is made; whatever the check fell back to is no verdict, so the run is flagged.
    engine, model = _toys_engine(make_engine)
    result = engine.run(Q, collection="movies", options=RunOptions(max_llm_calls=3))
    assert result.outcome is Outcome.BUDGET_EXHAUSTED
    assert len(model.calls) == 3 and result.trace.llm.calls == 3
    assert result.trace.stop_reason == "budget_exhausted: the run's cap of 3 model calls was reached"
    assert result.answer == "Toys come alive in it [1]."  # the best so far, flagged by the outcome
    assert "finalize" not in result.trace.path


def test_a_token_cap_refuses_the_calls_after_it_is_spent(make_engine: Any) -> None:
    engine, model = _toys_engine(make_engine)
    result = engine.run(Q, collection="movies", options=RunOptions(max_llm_tokens=1))
    assert result.outcome is Outcome.BUDGET_EXHAUSTED
    assert "model tokens was reached" in (result.trace.stop_reason or "")
    assert len(model.calls) < 5


def test_a_cap_that_is_not_reached_changes_nothing(make_engine: Any) -> None:
    engine, model = _toys_engine(make_engine)
    result = engine.run(Q, collection="movies", options=RunOptions(max_llm_calls=5, max_llm_tokens=100_000))
    assert result.outcome is Outcome.ANSWERED and result.trace.llm.calls == 5
