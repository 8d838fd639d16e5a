"""Judged metrics with a scripted judge: each metric's definition, computed by hand."""

from __future__ import annotations

from pathlib import Path

from eval.abstention import abstention_fields, is_answerable, risk_coverage
from eval.judged import (
    AnswerRelevancy,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
    JudgedCorrectness,
    JudgedInputs,
    judge_records,
)
from eval.judges import CachedCritic, describe_judge
from selfrag.testing import ScriptedJudge

Q = "Which city is the capital of Peru?"
CONTEXTS = ["Peru borders Chile.", "Lima is the capital and largest city of Peru, on the coast."]


def supports(needles: dict[str, float]) -> ScriptedJudge:
    """Support scored by whether the claim's key words are in the passage; relevance by 'Lima'."""

    def score(task: str, first: str, second: str) -> float:
        if task == "relevance":
            return 0.9 if "Lima" in second else 0.1
        if task == "usefulness":
            return needles.get(second, 0.5)
        return needles.get(first, 0.9 if any(w in second for w in first.split()[-1:]) else 0.1)

    return ScriptedJudge(score, thresholds={"support": 0.5, "relevance": 0.5})


def test_faithfulness_counts_supported_answer_sentences() -> None:
    judge = supports({"The mayor is Bob": 0.05})
    inputs = JudgedInputs(Q, "Lima [2]. The mayor is Bob. [2]", CONTEXTS, "Lima")
    value = Faithfulness().evaluate(inputs, judge)
    # "Lima" is short: judged as "question + Lima", supported; the second sentence is not
    assert value.value == 0.5 and value.reason == "1/2 answer sentences supported by a context"
    assert (f"{Q} Lima", CONTEXTS[1]) in [(f, s) for t, f, s in judge.calls if t == "support"]
    assert Faithfulness().evaluate(inputs._replace(contexts=[]), judge).value is None
    assert Faithfulness().evaluate(inputs._replace(answer=""), judge).value is None


def test_a_claim_quoted_from_a_context_is_supported_without_asking() -> None:
    judge = ScriptedJudge(lambda *_: 0.0)
    value = Faithfulness().evaluate(JudgedInputs(Q, "Lima is the capital and largest city of Peru, on the coast. [2]",
                                                 CONTEXTS, None), judge)
    assert value.value == 1.0 and judge.calls == []


def test_context_precision_is_average_precision_of_relevant_ranks() -> None:
    judge = supports({})
    value = ContextPrecision().evaluate(JudgedInputs(Q, "Lima", CONTEXTS, "Lima"), judge)
    assert value.value == 0.5  # relevant only at rank 2: (1/2) / 1
    value = ContextPrecision().evaluate(JudgedInputs(Q, "Lima", CONTEXTS[::-1] + CONTEXTS[1:], "Lima"), judge)
    assert value.value == (1 / 1 + 2 / 3) / 2  # relevant at ranks 1 and 3
    assert ContextPrecision().evaluate(JudgedInputs(Q, "x", [CONTEXTS[0]], "Lima"), judge).value == 0.0


def test_context_recall_is_the_share_of_reference_sentences_supported() -> None:
    judge = supports({"It has ten million people": 0.2})
    value = ContextRecall().evaluate(JudgedInputs(Q, "", CONTEXTS, "Lima is the capital of Peru, by the coast. It has ten million people."), judge)
    assert value.value == 0.5
    assert ContextRecall().evaluate(JudgedInputs(Q, "", CONTEXTS, None), judge).value is None


def test_judged_correctness_uses_the_lead_and_the_reference() -> None:
    judge = supports({f"{Q} Cusco": 0.1})
    right = JudgedCorrectness().evaluate(JudgedInputs(Q, "Lima. Lima is the capital [2]", CONTEXTS, "Lima"), judge)
    assert right.value == 1.0 and judge.calls == []  # the lead states the reference: no call
    # the reference only in the evidence after a wrong lead does not make it right
    wrong = JudgedCorrectness().evaluate(JudgedInputs(Q, "Cusco. Lima is the capital [2]", CONTEXTS, "Lima"), judge)
    assert wrong.value == 0.0
    assert judge.calls == [("support", f"{Q} Cusco", f"{Q} Lima"), ("support", f"{Q} Lima", f"{Q} Cusco")]  # both ways
    one_way = ScriptedJudge(lambda task, first, second: 0.9 if first.endswith("Cusco") else 0.1, thresholds={"support": 0.5})
    assert JudgedCorrectness().evaluate(JudgedInputs(Q, "Cusco", CONTEXTS, "Lima"), one_way).value == 0.0
    # yes/no is read, never judged: the critic cannot tell "Q? No" from "Q? yes"
    polar = ScriptedJudge(lambda *_: 1.0)
    assert JudgedCorrectness().evaluate(JudgedInputs("Is Lima in Peru?", "No. Lima is in Peru [1]", CONTEXTS, "yes"), polar).value == 0.0
    assert JudgedCorrectness().evaluate(JudgedInputs("Is Lima in Peru?", "Yes [1]", CONTEXTS, "yes"), polar).value == 1.0
    assert polar.calls == []
    paraphrase = JudgedCorrectness().evaluate(JudgedInputs(Q, "The city of Lima", CONTEXTS, "Lima city"),
                                              ScriptedJudge(lambda *_: 0.8, thresholds={"support": 0.5}))
    assert paraphrase.value == 1.0
    assert JudgedCorrectness().evaluate(JudgedInputs(Q, "Lima", CONTEXTS, None), judge).value is None


def test_answer_relevancy_is_the_usefulness_probability() -> None:
    judge = supports({"Lima": 0.8})
    assert AnswerRelevancy().evaluate(JudgedInputs(Q, "Lima [1]", CONTEXTS, None), judge).value == 0.8
    assert AnswerRelevancy().evaluate(JudgedInputs(Q, "", CONTEXTS, None), judge).value is None


def test_judge_records_fills_every_row_and_skips_failed_cases() -> None:
    rows = [
        {"id": "a", "question": Q, "answer": "Lima [2]", "contexts": CONTEXTS, "reference_answer": "Lima", "error": None},
        {"id": "b", "question": Q, "answer": None, "contexts": [], "reference_answer": "Lima", "error": "boom"},
    ]
    judge_records(rows, supports({}))
    assert rows[0]["judged_correct"] == 1.0 and rows[0]["faithfulness"] == 1.0 and rows[0]["context_precision"] == 0.5
    assert rows[0]["reasons"]["faithfulness"] == "1/1 answer sentences supported by a context"  # type: ignore[index]
    assert all(rows[1][k] is None for k in ("judged_correct", "faithfulness", "context_recall", "answer_relevancy"))


def test_the_critic_cache_answers_a_rerun_without_the_critic(tmp_path: Path) -> None:
    inner = supports({})
    cached = CachedCritic(inner, tmp_path / "judge.sqlite")
    first = cached.score("support", ["a", "b"], ["x", "y"])
    again = CachedCritic(inner, tmp_path / "judge.sqlite")  # a new process, the same file
    assert again.score("support", ["a", "b"], ["x", "y"]) == first
    assert len(inner.calls) == 2 and (again.hits, again.misses) == (2, 0)
    info = describe_judge(again, "local")
    assert info["model"] == "scripted-judge" and info["prompt_version"] and info["cache"].endswith("judge.sqlite")


def test_abstention_quality_and_the_risk_coverage_curve() -> None:
    assert is_answerable("Unanswerable") is False and is_answerable("Lima") is True and is_answerable(None) is None
    assert abstention_fields("abstained", "unanswerable") == {"abstained": 1.0, "abstention_ok": 1.0}
    assert abstention_fields("abstained", "Lima") == {"abstained": 1.0, "abstention_ok": 0.0}
    assert abstention_fields("unverified", "Lima") == {"abstained": 0.0, "abstention_ok": 1.0}
    assert abstention_fields("answered", "x", flag=False)["abstention_ok"] == 0.0
    rows = [
        {"outcome": "answered", "confidence": 0.9, "judged_correct": 1.0},
        {"outcome": "answered", "confidence": 0.8, "judged_correct": 0.0},
        {"outcome": "unverified", "confidence": 0.95, "judged_correct": 1.0},  # flagged: after every answered one
        {"outcome": "abstained", "confidence": None, "judged_correct": 0.0},
    ]
    rc = risk_coverage(rows, "judged_correct")
    assert rc is not None
    assert rc["points"] == [[0.25, 0.0], [0.5, 0.5], [0.75, 0.3333]]
    assert rc["aurc"] == round((0 + 0.5 + 0.3333) / 3, 4) and rc["n"] == 4
    # no confidence: ties are one point per outcome
    flat = risk_coverage([{**r, "confidence": None} for r in rows], "judged_correct")
    assert flat is not None and flat["points"] == [[0.5, 0.5], [0.75, 0.3333]]


def test_an_api_model_judges_through_yes_or_no_and_its_calls_are_cached(tmp_path: Path) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from eval.cache import SQLiteLLMCache, with_cache
    from eval.judges import PROMPT_VERSION, ChatJudge

    with SQLiteLLMCache(tmp_path / "llm.sqlite") as cache:
        model = with_cache(FakeListChatModel(responses=["Yes.", "no"]), cache)
        judge = ChatJudge(model, name="fake-judge")
        assert judge.score("support", ["Lima is in Peru", "Lima is in Chile"], [CONTEXTS[1]] * 2) == [1.0, 0.0]
        # the same questions again: served by the cache (the fake would otherwise answer in turn)
        assert judge.score("support", ["Lima is in Peru", "Lima is in Chile"], [CONTEXTS[1]] * 2) == [1.0, 0.0]
        assert cache.hits == 2
    assert judge.version == f"fake-judge+{PROMPT_VERSION}" and judge.threshold("support") == 0.5
