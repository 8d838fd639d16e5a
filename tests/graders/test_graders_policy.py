"""Bounded retries on junk and transient errors, then the failure policy decides; ``is_retryable``."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import ValidationError

from graders import (
    Combine,
    FailurePolicy,
    GraderConfig,
    GroundednessGrader,
    RelevanceGrade,
    RelevanceGrader,
    UsefulnessGrader,
)
from selfrag.errors import GraderError, ProviderError
from selfrag.retry import RetryPolicy, call_with_retries, is_retryable
from selfrag.testing import ScriptedChatModel, ScriptedJudge

NO_WAIT = RetryPolicy(attempts=3, initial_wait_s=0.0, max_wait_s=0.0)
GOOD = json.dumps({"verdict": "relevant", "reason": "fine"})


def config(policy: FailurePolicy = FailurePolicy.FAIL_CLOSED, attempts: int = 3) -> GraderConfig:
    return GraderConfig(policy=policy, retry=NO_WAIT._replace(attempts=attempts))


# -- retries -------------------------------------------------------------------------------------
def test_junk_is_retried_until_a_valid_verdict() -> None:
    junk = ["not json at all", '{"verdict": "maybe", "reason": "x"}']  # unparseable, then off-schema
    model = ScriptedChatModel.from_rules({"RelevanceGrade": [*junk, GOOD]})
    result = RelevanceGrader(model, config()).grade("q", {"text": "t"})
    assert result.passed and not result.failed
    assert result.attempts == 3 == len(model.calls)


def test_transient_provider_errors_are_retried() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": [ConnectionResetError("reset"), TimeoutError("slow"), GOOD]})
    result = RelevanceGrader(model, config()).grade("q", {"text": "t"})
    assert result.passed and result.attempts == 3


@pytest.mark.parametrize(
    ("policy", "passed", "label"),
    [(FailurePolicy.FAIL_CLOSED, False, "ungrounded"), (FailurePolicy.FAIL_OPEN, True, "grounded")],
)
def test_the_policy_decides_after_the_last_attempt(policy: FailurePolicy, passed: bool, label: str) -> None:
    model = ScriptedChatModel.from_rules({"GroundednessGrade": "still junk"})
    result = GroundednessGrader(model, config(policy, attempts=2)).grade("an answer", [{"text": "a doc"}])
    assert (result.passed, result.label, result.failed) == (passed, label, True)
    assert result.attempts == 2 == len(model.calls)
    assert result.llm_label is None
    assert result.error is not None and result.error.startswith("OutputParserException: GroundednessGrade: reply is not JSON")
    assert result.reason == f"grader failed; policy {policy.value} decided {'pass' if passed else 'fail'}"


def test_raise_policy_raises_grader_error() -> None:
    model = ScriptedChatModel.from_rules({"UsefulnessGrade": "junk"})
    with pytest.raises(GraderError, match=r"^the usefulness grader failed after 3 attempts$") as info:
        UsefulnessGrader(model, config(FailurePolicy.RAISE)).grade("q", "a")
    assert info.value.code == "grader_failed"
    assert info.value.detail is not None and info.value.detail.startswith("OutputParserException")  # logged, never shown
    assert isinstance(info.value.__cause__, OutputParserException)
    assert len(model.calls) == 3


def test_a_non_retryable_error_is_not_retried_and_the_record_says_so() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": [PermissionError("bad key"), GOOD]})
    result = RelevanceGrader(model, config()).grade("q", {"text": "t"})
    assert len(model.calls) == 1
    assert (result.passed, result.failed, result.attempts) == (False, True, 1)
    assert result.error == "PermissionError: bad key"

    model = ScriptedChatModel.from_rules({"RelevanceGrade": [PermissionError("bad key"), GOOD]})
    with pytest.raises(GraderError, match="failed after 1 attempt$") as info:
        RelevanceGrader(model, config(FailurePolicy.RAISE)).grade("q", {"text": "t"})
    assert info.value.detail == "PermissionError: bad key"


def test_a_failed_grade_still_records_the_critic_s_probability() -> None:
    model = ScriptedChatModel.from_rules({"RelevanceGrade": "junk"})
    judge = ScriptedJudge(lambda task, first, second: 0.8)
    grader = RelevanceGrader(model, config(attempts=1)._replace(combine=Combine.BOTH), critic=judge)
    result = grader.grade("toys", {"text": "toys"})
    assert result.failed and not result.passed and result.score == 0.8  # fail-closed, the critic's view kept


# -- call_with_retries ---------------------------------------------------------------------------
def test_call_with_retries_counts_attempts() -> None:
    outcomes: list[object] = [TimeoutError(), TimeoutError(), "done"]

    def fn() -> str:
        item = outcomes.pop(0)
        if isinstance(item, BaseException):
            raise item
        return str(item)

    assert call_with_retries(fn, NO_WAIT) == ("done", 3)


def test_call_with_retries_reraises_the_last_error() -> None:
    calls: list[int] = []

    def fn() -> None:
        calls.append(1)
        raise ProviderError(f"down #{len(calls)}")

    with pytest.raises(ProviderError, match="down #2"):
        call_with_retries(fn, NO_WAIT._replace(attempts=2))
    assert len(calls) == 2


def test_call_with_retries_makes_at_least_one_attempt() -> None:
    assert call_with_retries(lambda: 7, NO_WAIT._replace(attempts=0)) == (7, 1)


# -- is_retryable --------------------------------------------------------------------------------
def _validation_error() -> ValidationError:
    try:
        RelevanceGrade.model_validate({"verdict": "maybe"})
    except ValidationError as exc:
        return exc
    raise AssertionError("expected a ValidationError")


_REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def _response(status: int) -> httpx.Response:
    return httpx.Response(status, request=_REQUEST)


@pytest.mark.parametrize(
    "exc",
    [
        OutputParserException("bad output"),
        _validation_error(),
        json.JSONDecodeError("Expecting value", "x", 0),
        TimeoutError(),
        ConnectionResetError(),
        ProviderError("local model call failed"),
        httpx.ConnectError("refused", request=_REQUEST),
        httpx.ReadTimeout("slow", request=_REQUEST),
        openai.APIConnectionError(request=_REQUEST),
        openai.APITimeoutError(request=_REQUEST),
        openai.RateLimitError("slow down", response=_response(429), body=None),
        openai.InternalServerError("oops", response=_response(500), body=None),
    ],
    ids=lambda e: type(e).__name__,
)
def test_retryable(exc: BaseException) -> None:
    assert is_retryable(exc)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("a bug"),
        KeyError("missing"),
        PermissionError("denied"),
        GraderError("already failed"),
        openai.AuthenticationError("bad key", response=_response(401), body=None),
        openai.BadRequestError("bad request", response=_response(400), body=None),
    ],
    ids=lambda e: type(e).__name__,
)
def test_not_retryable(exc: BaseException) -> None:
    assert not is_retryable(exc)
