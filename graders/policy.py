"""How graders survive an unreliable model: bounded retries, then an explicit failure policy.

Retried: schema-invalid output (``OutputParserException``, pydantic ``ValidationError``) and
transient provider errors (timeouts, connection resets, rate limits, 5xx). Not retried: anything
else (a bug, an auth error) — retrying cannot help and would only hide it.

After the last attempt the grader's ``FailurePolicy`` decides, and the trace records that it did.
The default is fail-closed: a document whose grade failed is not relevant; an answer that could
not be verified is ungrounded / not useful.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple, TypeVar

from langchain_core.exceptions import OutputParserException
from pydantic import ValidationError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from selfrag.errors import ProviderError

__all__ = ["FailurePolicy", "RetryPolicy", "call_with_retries", "is_retryable"]

T = TypeVar("T")


class FailurePolicy(StrEnum):
    """What a grader concludes when it cannot get a valid verdict."""

    FAIL_CLOSED = "fail_closed"
    """Conclude the negative: not relevant / ungrounded / not useful. Safe for accuracy."""
    FAIL_OPEN = "fail_open"
    """Conclude the positive. Only for graders whose failure should not block an answer."""
    RAISE = "raise"
    """Raise ``GraderError``: for experiments that must see every failure."""


class RetryPolicy(NamedTuple):
    """Bounded retries with exponential backoff and jitter."""

    attempts: int = 3
    """Total attempts, the first included."""
    initial_wait_s: float = 0.2
    """First backoff; doubles each retry, with jitter."""
    max_wait_s: float = 4.0
    """Cap on one backoff."""


def _transient_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [TimeoutError, ConnectionError, ProviderError]
    try:  # openai is present with langchain-openai; keep the import local so fakes need nothing
        import openai

        types += [openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError]
    except ImportError:  # pragma: no cover
        pass
    try:
        import httpx

        types += [httpx.TransportError]
    except ImportError:  # pragma: no cover
        pass
    return tuple(types)


_TRANSIENT = _transient_types()


def is_retryable(exc: BaseException) -> bool:
    """Schema-invalid output or a transient provider failure."""
    return isinstance(exc, (OutputParserException, ValidationError, json.JSONDecodeError) + _TRANSIENT)


def call_with_retries(fn: Callable[[], T], retry: RetryPolicy) -> tuple[T, int]:
    """Call ``fn`` under ``retry``; return its value and the number of attempts made.

    Raises:
        The last exception when every attempt failed, or the first non-retryable one.
    """
    attempts = 0
    for attempt in Retrying(
        stop=stop_after_attempt(max(1, retry.attempts)),
        wait=wait_exponential_jitter(multiplier=retry.initial_wait_s, max=retry.max_wait_s, jitter=retry.initial_wait_s),
        retry=retry_if_exception(is_retryable),
        reraise=True,
    ):
        with attempt:
            attempts = attempt.retry_state.attempt_number
            value = fn()
    return value, attempts
