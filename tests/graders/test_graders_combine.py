"""How a grader's LLM verdict and its deterministic signal combine, with signals worked out by hand.

Signals used below (see test_graders_signals.py for the tokenisation):

* relevance of DOC to QUESTION: question terms {movie, greta, gerwig, direct}; the document text
  with its metadata line holds greta and gerwig → overlap 2/4 = 0.5; its similarity 0.2 is lower.
* groundedness of ANSWER on FACT (one claim, see graders/claims.py): its content terms less the
  words that never name a measure ("reached", "billion") are walmart, revenue, 611, strong, holiday,
  trade; the one passage holds 3 of 6 → 0.5. An invented figure ("700 stores") scores 0.
* usefulness of "Greta Gerwig made Little Women" for QUESTION: it states something new, so 0.5
  plus half of its question-term overlap (2 of 4: movie and direct are missing) → 0.75.
"""

from __future__ import annotations

import pytest

from graders import Combine, GraderConfig, GroundednessGrader, RelevanceGrader, RetryPolicy, UsefulnessGrader
from selfrag.testing import ScriptedChatModel
from selfrag.testing import verdict as scripted_verdict

QUESTION = "Which movies did Greta Gerwig direct?"
DOC = {"id": "lw", "text": "A bunch of women are wholesome", "metadata": {"director": "Greta Gerwig"}, "score": 0.2}
ANSWER = "Walmart revenue reached 611 billion in strong holiday trading"
FACT = {"text": "Walmart revenue reached 611 billion."}
NO_WAIT = RetryPolicy(attempts=2, initial_wait_s=0.0, max_wait_s=0.0)


def model(task: str, verdict: str) -> ScriptedChatModel:
    return ScriptedChatModel.from_rules({task: scripted_verdict(verdict)})


def relevance(combine: Combine, threshold: float, verdict: str) -> tuple[bool, float | None, int]:
    m = model("RelevanceGrade", verdict)
    r = RelevanceGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold)).grade(QUESTION, DOC)
    return r.passed, r.score, len(m.calls)


@pytest.mark.parametrize(
    ("combine", "threshold", "verdict", "passed"),
    [
        (Combine.LLM, 0.9, "relevant", True),  # the signal is recorded but does not decide
        (Combine.LLM, 0.1, "irrelevant", False),
        (Combine.BOTH, 0.5, "relevant", True),  # 0.5 >= 0.5 and the LLM agrees
        (Combine.BOTH, 0.6, "relevant", False),  # 0.5 < 0.6 vetoes the LLM
        (Combine.BOTH, 0.5, "irrelevant", False),
        (Combine.EITHER, 0.6, "relevant", True),
        (Combine.EITHER, 0.5, "irrelevant", True),  # the signal alone is enough
        (Combine.EITHER, 0.6, "irrelevant", False),
    ],
)
def test_relevance_combinations(combine: Combine, threshold: float, verdict: str, passed: bool) -> None:
    assert relevance(combine, threshold, verdict) == (passed, 0.5, 1)


def test_signal_alone_makes_no_call_and_says_why() -> None:
    grader = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL, threshold=0.5))
    result = grader.grade(QUESTION, DOC)
    assert (result.passed, result.label, result.score, result.attempts) == (True, "relevant", 0.5, 0)
    assert result.reason == "signal 0.50 >= threshold 0.5" and result.model == "none" and result.llm_label is None
    strict = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL, threshold=0.51)).grade(QUESTION, DOC)
    assert (strict.passed, strict.label, strict.reason) == (False, "irrelevant", "signal 0.50 < threshold 0.51")


def test_relevance_signal_takes_the_retrieval_similarity_when_higher() -> None:
    grader = RelevanceGrader(None, GraderConfig(combine=Combine.SIGNAL, threshold=0.8))
    assert grader.grade("quantum physics", {"text": "toys", "score": 0.85}).score == 0.85
    assert grader.grade("quantum physics", {"text": "toys", "score": 3.0}).score == 1.0  # capped at 1
    assert grader.grade("quantum physics", {"text": "toys"}).score == 0.0  # no similarity: overlap only


@pytest.mark.parametrize(
    ("combine", "threshold", "verdict", "passed"),
    [
        (Combine.BOTH, 0.5, "grounded", True),  # 0.5 clears 0.5
        (Combine.BOTH, 0.6, "grounded", False),  # half the claim is not in the passage
        (Combine.EITHER, 0.5, "ungrounded", True),
        (Combine.LLM, 0.99, "grounded", True),
    ],
)
def test_groundedness_combinations(combine: Combine, threshold: float, verdict: str, passed: bool) -> None:
    m = model("GroundednessGrade", verdict)
    result = GroundednessGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold)).grade(ANSWER, [FACT])
    assert (result.passed, result.score, result.llm_label) == (passed, 0.5, verdict)
    assert result.label == ("grounded" if passed else "ungrounded")
    assert [c["claim"] for c in result.claims] == [ANSWER]  # per-claim support goes to the trace


def test_an_invented_figure_fails_its_claim_whatever_the_llm_says() -> None:
    m = model("GroundednessGrade", "grounded")
    grader = GroundednessGrader(m, GraderConfig(retry=NO_WAIT, combine=Combine.BOTH, threshold=0.5))
    result = grader.grade("Walmart revenue reached 611 billion. It had 700 stores.", [FACT])
    assert (result.passed, result.score) == (False, 0.0)
    assert result.reason == "claim not supported: no passage states 700"


def test_groundedness_signal_reads_document_metadata() -> None:
    grader = GroundednessGrader(None, GraderConfig(combine=Combine.SIGNAL, threshold=1.0))
    doc = {"text": "A bunch of women are wholesome", "metadata": {"director": "Greta Gerwig", "source": "x"}}
    assert grader.grade("Greta Gerwig", [doc]).score == 1.0  # supported by the director attribute
    assert grader.grade("Greta Gerwig", [{"text": doc["text"]}]).score == 0.0


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
    grader = UsefulnessGrader(m, GraderConfig(retry=NO_WAIT, combine=combine, threshold=threshold))
    result = grader.grade(QUESTION, "Greta Gerwig made Little Women")
    assert (result.passed, result.score) == (passed, 0.75)
    assert len(m.calls) == (0 if combine is Combine.SIGNAL else 1)
