"""One retry policy for every model call: bounded attempts, exponential backoff with jitter.

Retried: schema-invalid output (``OutputParserException``, pydantic ``ValidationError``, bad
JSON), because sampling may differ, and transient provider failures (timeouts, connection
resets, rate limits, 5xx), recognised by class name so that no provider SDK has to be imported.
Not retried: anything else (a bug, an auth error): retrying cannot help and would only hide it;
nor a call refused by an open circuit breaker (``selfrag.breaker``): its server failed repeatedly
just now, and failing fast is the breaker's whole point.

A call whose last attempt failed for a transport reason is reported to the run
(``selfrag.outages.report_outage``), which then ends as an error whatever the caller falls back to.

The graders, the answer generator, the rewriter, the condenser and the self-query planner all
call through ``call_with_retries``; what each does after the last failure is its own policy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from langchain_core.exceptions import OutputParserException
from pydantic import ValidationError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from selfrag.breaker import BreakerOpen
from selfrag.errors import ProviderError
from selfrag.outages import is_outage, report_outage

__all__ = ["Attempts", "RetryPolicy", "call_with_retries", "is_retryable"]

T = TypeVar("T")

_TRANSIENT_NAMES = frozenset({
    "APIConnectionError", "APITimeoutError", "RateLimitError", "InternalServerError", "ServiceUnavailableError",
    "TransportError",  # httpx: connect/read/write errors and timeouts
})  # fmt: skip


class RetryPolicy(NamedTuple):
    """Bounded retries with exponential backoff and jitter."""

    attempts: int = 3
    """Total attempts, the first included."""
    initial_wait_s: float = 0.2
    """First backoff; doubles each retry, with jitter."""
    max_wait_s: float = 4.0
    """Cap on one backoff."""


class Attempts:
    """How many attempts a call made; readable after it failed too (pass one to ``call_with_retries``)."""

    def __init__(self) -> None:
        self.made = 0


def is_retryable(exc: BaseException) -> bool:
    """Schema-invalid output or a transient provider failure (never a call an open breaker refused)."""
    link: BaseException | None = exc
    while link is not None:
        if isinstance(link, BreakerOpen):
            return False
        link = link.__cause__ or link.__context__
    if isinstance(exc, (OutputParserException, ValidationError, json.JSONDecodeError, ProviderError, TimeoutError, ConnectionError)):
        return True
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)


def call_with_retries(fn: Callable[[], T], retry: RetryPolicy, *, attempts: Attempts | None = None) -> tuple[T, int]:
    """Call ``fn`` under ``retry``; return its value and the number of attempts made.

    Raises:
        The last exception when every attempt failed, or the first non-retryable one
        (``attempts.made`` then says how many were made).
    """
    count = attempts if attempts is not None else Attempts()
    try:
        for attempt in Retrying(
            stop=stop_after_attempt(max(1, retry.attempts)),
            wait=wait_exponential_jitter(multiplier=retry.initial_wait_s, max=retry.max_wait_s, jitter=retry.initial_wait_s),
            retry=retry_if_exception(is_retryable),
            reraise=True,
        ):
            with attempt:
                count.made = attempt.retry_state.attempt_number
                value = fn()
    except Exception as exc:
        if is_outage(exc):
            report_outage(exc)
        raise
    return value, count.made
