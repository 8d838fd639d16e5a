"""How a grader's LLM verdict and the critic's probability combine, with a scripted critic.

The critic is ``selfrag.testing.ScriptedJudge``: a function from (task, first, second) to a
probability, so each case says exactly what the critic would have said.
"""

from __future__ import annotations

import pytest

from graders import Combine, GraderConfig, GroundednessGrader, RelevanceGrader, UsefulnessGrader
from selfrag.retry import RetryPolicy
from selfrag.testing import ScriptedChatModel, ScriptedJudge
from selfrag.testing import verdict as scripted_verdict

QUESTION = "Which movies did Greta Gerwig direct?"
DOC = {"id": "lw", "text": "A bunch of women are wholesome", "metadata": {"director": "Greta Gerwig"}, "score": 0.2}
FACT = {"text": "Walmart revenue reached $611 billion."}
NO_WAIT = RetryPolicy(attempts=2, initial_wait_s=0.0, max_wait_s=0.0)


def model(task: str, verdict: str) -> ScriptedChatModel:
    return ScriptedChatModel.from_rules({task: scripted_verdict(verdict)})


def critic(p: float, **thresholds: float) -> ScriptedJudge:
    return ScriptedJudge(lambda task, first, second: p, thresholds=thresholds, name="judge-test-v1")


@pytest.mark.parametrize(
    ("combine", "threshold", "verdict", "passed"),
    [
        (Combine.LLM, 0.9, "relevant", True),  # the critic is not asked
        (Combine.LLM, 0.1, "irrelevant", False),
        (Combine.BOTH, 0.5, "relevant", True),  # 0.5 >= 0.5 and the LLM agrees
        (Combine.BOTH, 0.6, "relevant", False),  # 0.5 < 0.6 vetoes the LLM
        (Combine.BOTH, 0.5, "irrelevant", False),
        (Combine.EITHER, 0.6, "relevant", True),
        (Combine.EITHER, 0.5, "irrelevant", True),  # the critic alone is enough
        (Combine.EITHER, 0.6, "irrelevant", False),
    ],
)
def test_relevance_combinations(combine: Combine, threshold: float, verdict: str, passed: bool) -> None:
    m = model("RelevanceGrade", verdict)
    judge = critic(0.5)
    r = RelevanceGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold), critic=judge).grade(QUESTION, DOC)
    assert (r.passed, r.score, len(m.calls)) == (passed, None if combine is Combine.LLM else 0.5, 1)
    assert (len(judge.calls) > 0) == (combine is not Combine.LLM)


def test_the_critic_alone_makes_no_model_call_names_itself_and_says_why() -> None:
    grader = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=critic(0.5, relevance=0.4))
    result = grader.grade(QUESTION, DOC)
    assert (result.passed, result.label, result.score, result.attempts) == (True, "relevant", 0.5, 0)
    # a verdict the critic decided carries the critic's name, not a chat model's
    assert result.model == "judge-test-v1" and result.llm_label is None
    assert result.reason == "critic relevance 0.50 >= threshold 0.40"
    strict = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL, threshold=0.51), critic=critic(0.5)).grade(QUESTION, DOC)
    assert (strict.passed, strict.label, strict.reason) == (False, "irrelevant", "critic relevance 0.50 < threshold 0.51")


def test_the_critic_reads_the_metadata_line_with_the_text() -> None:
    judge = critic(0.9)
    RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge).grade(QUESTION, DOC)
    assert judge.calls == [("relevance", QUESTION, "A bunch of women are wholesome\n(director: Greta Gerwig)")]


def test_relevance_grades_a_question_s_documents_in_one_critic_batch() -> None:
    seen: list[int] = []

    class Counting(ScriptedJudge):
        def score(self, task: str, firsts: list[str], seconds: list[str]) -> list[float]:
            seen.append(len(firsts))
            return super().score(task, firsts, seconds)

    grader = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=Counting())
    results = grader.grade_many(QUESTION, [DOC, {"id": "b", "text": "other"}, {"id": "c", "text": "more"}])
    assert seen == [3] and [r.subject for r in results] == ["lw", "b", "c"]


def test_a_grader_that_combines_needs_a_critic() -> None:
    with pytest.raises(ValueError, match="needs a critic"):
        RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL))


def test_an_overridden_model_verdict_says_the_critic_overrode_it_and_what_the_model_said() -> None:
    m = ScriptedChatModel.from_rules({"GroundednessGrade": scripted_verdict("grounded", "it is in the text")})
    grader = GroundednessGrader(m, GraderConfig(retry=NO_WAIT, combine=Combine.BOTH, threshold=0.5), critic=critic(0.2))
    result = grader.grade("Walmart's revenue hit $611 billion [1].", [FACT])
    assert not result.passed and result.llm_label == "grounded"
    assert "overrode the model's verdict" in result.reason and "it is in the text" in result.reason
    assert result.model.endswith("+judge-test-v1")


@pytest.mark.parametrize(
    ("combine", "threshold", "verdict", "passed"),
    [
        (Combine.BOTH, 0.7, "grounded", True),
        (Combine.BOTH, 0.8, "grounded", False),
        (Combine.EITHER, 0.7, "ungrounded", True),
        (Combine.LLM, 0.99, "grounded", True),
    ],
)
def test_groundedness_combinations(combine: Combine, threshold: float, verdict: str, passed: bool) -> None:
    m = model("GroundednessGrade", verdict)
    grader = GroundednessGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold), critic=critic(0.7))
    result = grader.grade("Walmart's revenue hit $611 billion [1].", [FACT])
    assert (result.passed, result.llm_label) == (passed, verdict)
    assert result.label == ("grounded" if passed else "ungrounded")
    if combine is not Combine.LLM:
        assert result.score == 0.7
        assert [c["claim"] for c in result.claims] == ["Walmart's revenue hit $611 billion."]


def test_an_invented_figure_fails_its_claim_whatever_the_critic_and_the_model_say() -> None:
    m = model("GroundednessGrade", "grounded")
    grader = GroundednessGrader(m, GraderConfig(retry=NO_WAIT, combine=Combine.BOTH, threshold=0.5), critic=critic(0.99))
    result = grader.grade("Walmart revenue reached $611 billion. It had 700 stores.", [FACT])
    assert (result.passed, result.score) == (False, 0.0)
    assert result.reason.startswith("claim not supported: 700 is not stated by the cited document")


def test_each_claim_is_judged_against_the_documents_it_cites() -> None:
    other = {"text": "Costco had 316,000 employees."}
    judge = critic(0.9)
    grader = GroundednessGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge)
    result = grader.grade("Walmart's revenue hit $611 billion [1]. Costco employed 316,000 people [2].", [FACT, other])
    assert result.passed
    assert [(c[1], c[2]) for c in judge.calls] == [
        ("Walmart's revenue hit $611 billion.", FACT["text"]), ("Costco employed 316,000 people.", other["text"]),
    ]
    # the same figure cited to the wrong document is not stated there
    wrong = grader.grade("Costco employed 316,000 people [1].", [FACT, other])
    assert not wrong.passed


def test_a_claim_quoted_word_for_word_from_its_document_is_supported_without_asking_the_critic() -> None:
    judge = critic(0.1)
    grader = GroundednessGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge)
    result = grader.grade("Walmart  revenue reached\n$611 billion [1].", [FACT])  # whitespace differs only
    assert result.passed and judge.calls == []
    assert result.claims[0]["reason"] == "quoted verbatim from document [1]"
    assert not grader.grade("Walmart revenue reached $611 billion [1].", [{"text": "Costco revenue reached $611 billion."}]).passed


def test_the_reader_s_short_answer_is_judged_with_its_question() -> None:
    judge = critic(0.9)
    grader = GroundednessGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge)
    grader.grade("$611 billion. Walmart revenue reached $611 billion. [1]", [FACT], "What was Walmart's revenue?",
                 short_answer="$611 billion")
    # the quote is verbatim (no call); the short answer is what the critic judges
    assert [c[1] for c in judge.calls] == ["What was Walmart's revenue? $611 billion"]


def test_a_two_document_answer_is_judged_against_its_quotes_of_both_documents_together() -> None:
    # Bug: a two-document answer ("25 cents per day", the late fee of the library the handbook
    # names) failed its own check: no one document states it, so the best single one scored low.
    docs = [{"text": "Staff get free membership of the Marrow Street library."},
            {"text": "The Marrow Street library opens at 9 am. Late returns cost 25 cents per day."}]

    def support(task: str, first: str, second: str) -> float:
        return 0.9 if "free membership" in second and "Late returns" in second else 0.2

    judge = ScriptedJudge(support, thresholds={"support": 0.5})
    grader = GroundednessGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge)
    answer = ("25 cents per day. Staff get free membership of the Marrow Street library [1]. "
              "Late returns cost 25 cents per day [2].")
    question = "What is the daily late fee at the library whose membership staff get free?"
    result = grader.grade(answer, docs, question, short_answer="25 cents per day")
    assert result.passed
    assert result.claims[0]["reason"] == "support 0.90 from the quotes of documents [1, 2] together"
    # one document's quote alone is judged against the documents only, as before
    single = grader.grade("25 cents per day. Late returns cost 25 cents per day. [2]", docs, question,
                          short_answer="25 cents per day")
    assert not single.passed


@pytest.mark.parametrize(
    ("combine", "threshold", "verdict", "passed"),
    [
        (Combine.BOTH, 0.75, "useful", True),
        (Combine.BOTH, 0.8, "useful", False),
        (Combine.EITHER, 0.75, "not_useful", True),
        (Combine.SIGNAL, 0.8, "useful", False),
    ],
)
def test_usefulness_combinations(combine: Combine, threshold: float, verdict: str, passed: bool) -> None:
    m = model("UsefulnessGrade", verdict)
    grader = UsefulnessGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold), critic=critic(0.75))
    result = grader.grade(QUESTION, "Greta Gerwig made Little Women")
    assert (result.passed, result.score) == (passed, 0.75)
    assert len(m.calls) == (0 if combine is Combine.SIGNAL else 1)


def test_usefulness_judges_the_short_answer_without_markers() -> None:
    judge = critic(0.9)
    UsefulnessGrader(None, GraderConfig(combine=Combine.SIGNAL), critic=judge).grade(
        "Is it safe?", "Yes. It is safe for adults [1].", short_answer="Yes")
    assert judge.calls == [("usefulness", "Is it safe?", "Yes")]
