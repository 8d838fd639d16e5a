"""The answer generator's own record: how many attempts it really made."""

from __future__ import annotations

from selfrag.retry import RetryPolicy
from selfrag.testing import ScriptedChatModel
from workflows import AnswerGenerator

DOCS = [{"id": "d1", "text": "Toy Story (1995) is about toys that come alive."}]
THREE = RetryPolicy(attempts=3, initial_wait_s=0.0, max_wait_s=0.0)


def test_a_non_retryable_failure_is_one_attempt_not_the_budget() -> None:
    model = ScriptedChatModel.from_rules({"generate": PermissionError("bad key")})
    out = AnswerGenerator(model, retry=THREE).generate("Which toys come alive?", DOCS)
    assert out.error is not None and out.error.startswith("PermissionError")
    assert out.attempts == len(model.calls_for("generate")) == 1


def test_a_retryable_failure_uses_every_attempt() -> None:
    model = ScriptedChatModel.from_rules({"generate": ConnectionError("down")})
    out = AnswerGenerator(model, retry=THREE).generate("Which toys come alive?", DOCS)
    assert out.attempts == len(model.calls_for("generate")) == 3
