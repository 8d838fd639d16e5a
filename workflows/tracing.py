"""OpenTelemetry spans for the graph's nodes: off by default (``tracing.otel``, or
``SELFRAG_TRACING__OTEL=1``), with ``opentelemetry-api``/``-sdk`` an optional dependency
(``pip install 'selfrag[tracing]'``).

Each node a run executes becomes one span, ``selfrag.<node>``, carrying the node, its wall time
and whatever the caller put in ``span_attributes`` — the HTTP service puts its request id there
(``selfrag.request_id``, the ``X-Request-ID`` its log lines name), so a span, a log line and a
client's report meet. The spans are children of whatever span is current where the node runs
(an instrumented server's request span, a caller's own); where they go is the application's
``TracerProvider`` (an OTLP exporter, the console, a test's in-memory exporter).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from selfrag.errors import ConfigError, one_line

__all__ = ["OneLineLogs", "node_span", "otel_tracer", "quiet_langsmith", "span_attributes"]

_ATTRIBUTES: ContextVar[Mapping[str, str]] = ContextVar("selfrag_span_attributes", default={})  # noqa: B039 - never mutated


@contextmanager
def span_attributes(**attributes: str) -> Iterator[None]:
    """Within this block (and the worker threads its context is copied into), every node span
    also carries ``selfrag.<name>`` = value for each of ``attributes``."""
    token = _ATTRIBUTES.set({**_ATTRIBUTES.get(), **{f"selfrag.{k}": v for k, v in attributes.items()}})
    try:
        yield
    finally:
        _ATTRIBUTES.reset(token)


def otel_tracer() -> Any:
    """The ``selfrag`` tracer of the global ``TracerProvider``.

    Raises:
        ConfigError: tracing is on and OpenTelemetry is not installed.
    """
    try:
        from opentelemetry import trace
    except ImportError:
        raise ConfigError(
            "tracing.otel is on but OpenTelemetry is not installed: pip install 'selfrag[tracing]'"
        ) from None
    return trace.get_tracer("selfrag")


@contextmanager
def node_span(tracer: Any, node: str) -> Iterator[None]:
    """A span around one node's run when ``tracer`` is set (else nothing)."""
    if tracer is None:
        yield
        return
    with tracer.start_as_current_span(f"selfrag.{node}", attributes={"selfrag.node": node, **_ATTRIBUTES.get()}):
        yield


class OneLineLogs(logging.Filter):
    """Each record on one line, without its traceback, and the same message at most once per
    ``every_s``: what an unreachable tracing endpoint is allowed to say on a terminal."""

    def __init__(self, every_s: float = 60.0, chars: int = 240) -> None:
        super().__init__()
        self.every_s = every_s
        self.chars = chars
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        text = one_line(record.getMessage(), self.chars)
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(text, -self.every_s) < self.every_s:
                return False
            self._last[text] = now
        record.msg, record.args, record.exc_info, record.exc_text, record.stack_info = text, None, None, None, None
        return True


def quiet_langsmith() -> None:
    """LangSmith tracing (LangChain's ``LANGSMITH_TRACING``/``LANGSMITH_API_KEY``) logs a
    multi-line error with a traceback for every batch it cannot send; keep each to one line, once
    a minute. Idempotent."""
    logger = logging.getLogger("langsmith")
    if not any(isinstance(f, OneLineLogs) for f in logger.filters):
        logger.addFilter(OneLineLogs())
    for name in ("langsmith.client", "langsmith._internal._background_thread"):
        child = logging.getLogger(name)
        if not any(isinstance(f, OneLineLogs) for f in child.filters):
            child.addFilter(OneLineLogs())
