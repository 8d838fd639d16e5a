"""Each grader turns the model's structured verdict into a ``GradeResult`` and shows it fenced data."""

from __future__ import annotations

import pytest
from langchain_core.messages import BaseMessage

from graders import (
    GROUNDEDNESS_V1,
    RELEVANCE_V1,
    USEFULNESS_V1,
    GraderConfig,
    GroundednessGrader,
    PromptSpec,
    RelevanceGrader,
    UsefulnessGrader,
)
from graders.verdicts import Verdict
from selfrag.fencing import DATA_NOT_INSTRUCTIONS
from selfrag.retry import RetryPolicy
from selfrag.testing import ScriptedChatModel, verdict

FAST = GraderConfig(retry=RetryPolicy(attempts=3, initial_wait_s=0.0, max_wait_s=0.0))
DOC = {"id": "little-women", "text": "A bunch of women are wholesome", "metadata": {"director": "Greta Gerwig", "source": "/x.jsonl"}}


def reply(verdict_: str, reason: str = "because") -> str:
    return verdict(verdict_, reason)


@pytest.mark.parametrize(("verdict", "passed"), [("relevant", True), ("irrelevant", False)])
def test_relevance_verdicts(verdict: str, passed: bool) -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": reply(verdict, "mentions Gerwig")})
    result = RelevanceGrader(model, FAST).grade("Which movies did Greta Gerwig direct?", DOC)
    assert (result.passed, result.label, result.llm_label) == (passed, verdict, verdict)
    assert result.kind == "relevance" and result.subject == "little-women"
    assert result.reason == "mentions Gerwig" and result.prompt_version == "relevance/v1"
    assert result.model == "scripted" and result.attempts == 1 and not result.failed and result.error is None
    [call] = model.calls
    assert call.task == "RelevanceGrade"
    assert call.messages[0].content == RELEVANCE_V1.system.format()
    assert "<question>\nWhich movies did Greta Gerwig direct?\n</question>" in call.prompt
    # the document is fenced with its descriptive metadata, but not its bookkeeping
    assert "<document>\nA bunch of women are wholesome\n(director: Greta Gerwig)\n</document>" in call.prompt
    assert "/x.jsonl" not in call.prompt


@pytest.mark.parametrize(("verdict", "passed"), [("grounded", True), ("ungrounded", False)])
def test_groundedness_verdicts(verdict: str, passed: bool) -> None:
    model = ScriptedChatModel.from_rules({"GroundednessGrade": reply(verdict)})
    result = GroundednessGrader(model, FAST).grade("Greta Gerwig directed it [1].", [DOC, {"text": "Toys come alive"}])
    assert (result.passed, result.label, result.kind, result.subject) == (passed, verdict, "groundedness", None)
    assert result.prompt_version == "groundedness/v1"
    prompt = model.calls[0].prompt
    assert prompt.count("<document number=") == 2 and '<document number="2">\nToys come alive\n</document>' in prompt
    assert "<answer>\nGreta Gerwig directed it [1].\n</answer>" in prompt
    assert model.calls[0].messages[0].content == GROUNDEDNESS_V1.system.format()


@pytest.mark.parametrize(("verdict", "passed"), [("useful", True), ("not_useful", False)])
def test_usefulness_verdicts(verdict: str, passed: bool) -> None:
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": reply(verdict)})
    result = UsefulnessGrader(model, FAST).grade("Who directed Little Women?", "Greta Gerwig [1].")
    assert (result.passed, result.label, result.kind) == (passed, verdict, "usefulness")
    assert result.prompt_version == "usefulness/v1"
    assert model.calls[0].messages[0].content == USEFULNESS_V1.system.format()


@pytest.mark.parametrize("spec", [RELEVANCE_V1, GROUNDEDNESS_V1, USEFULNESS_V1])
def test_every_prompt_says_fenced_text_is_data(spec: PromptSpec) -> None:
    system = spec.system.format()
    assert DATA_NOT_INSTRUCTIONS in system and '{"verdict"' in system


@pytest.mark.parametrize(
    "raw",
    [
        '```json\n{"verdict": "relevant", "reason": "ok"}\n```',  # code fence
        'Sure! {"verdict": "relevant", "reason": "ok"} Hope that helps.',  # chatter around the JSON
        '{"verdict": "relevant", "reason": "ok", "confidence": 0.9}',  # unknown keys are ignored
        '{"verdict": "relevant"}',  # the reason is optional
    ],
)
def test_tolerated_reply_shapes(raw: str) -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": raw})
    result = RelevanceGrader(model, FAST).grade("q", {"text": "t"})
    assert result.passed and result.attempts == 1 and result.subject is None


def test_a_long_reason_is_truncated_not_rejected() -> None:
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": reply("useful", "very " * 100 + "\n long")})
    result = UsefulnessGrader(model, FAST).grade("q", "a")
    assert result.attempts == 1 and len(result.reason) == 200 and "\n" not in result.reason


def test_record_is_what_the_trace_records() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": reply("irrelevant", "off topic")})
    record = RelevanceGrader(model, FAST).grade("q", {"id": "d1", "text": "t", "score": 0.2}).record()
    assert record == {
        "kind": "relevance", "subject": "d1", "passed": False, "label": "irrelevant", "reason": "off topic",
        "llm_label": "irrelevant", "score": None, "failed": False, "error": None, "attempts": 1,
        "prompt_version": "relevance/v1", "model": "scripted", "generation": None, "claims": [],
    }  # fmt: skip
    assert set(record) == set(Verdict.__annotations__)  # the one shape, every key always there


def test_grade_many_keeps_input_order_under_concurrency() -> None:
    def rule(messages: list[BaseMessage]) -> str:
        document = str(messages[-1].content).split("<document>", 1)[1]
        return reply("relevant" if "keep" in document else "irrelevant")

    model = ScriptedChatModel.from_rules({"RelevanceGrade": rule})
    docs = [{"id": f"d{i}", "text": "keep this" if i % 3 == 0 else "drop this"} for i in range(9)]
    results = RelevanceGrader(model, FAST).grade_many("which to keep?", docs, concurrency=4)
    assert [r.subject for r in results] == [d["id"] for d in docs]
    assert [r.passed for r in results] == [i % 3 == 0 for i in range(9)]
    assert RelevanceGrader(model, FAST).grade_many("q", []) == []


def test_a_grader_needs_a_model_unless_it_grades_by_signal_alone() -> None:
    with pytest.raises(ValueError, match="needs a chat model"):
        RelevanceGrader(None, FAST)
