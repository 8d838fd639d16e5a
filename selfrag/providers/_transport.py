"""The HTTP transport under the OpenAI-compatible clients: it reports to the endpoint's breaker.

The breaker (``selfrag.breaker``) sits at the transport, below the openai SDK, so it sees every
attempt of every caller (graders, generator, planner, embeddings) and refuses calls before a
connection is tried once the server is known to be down. A refused call raises ``BreakerOpen``,
which the SDK wraps in its connection error; ``selfrag.retry`` finds it in the chain and does not
retry.
"""

from __future__ import annotations

import contextlib

import httpx

from selfrag.breaker import CircuitBreaker

__all__ = ["BreakerClient", "BreakerTransport"]

_SERVER_DOWN = frozenset({502, 503, 504})
"""Statuses of a server (or its proxy) that cannot serve at all; other answers prove it is up."""


class BreakerTransport(httpx.BaseTransport):
    def __init__(self, breaker: CircuitBreaker, inner: httpx.BaseTransport | None = None) -> None:
        self.breaker = breaker
        self._inner = inner if inner is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.breaker.before()
        try:
            response = self._inner.handle_request(request)
        except httpx.TransportError:
            self.breaker.failure()
            raise
        if response.status_code in _SERVER_DOWN:
            self.breaker.failure()
        else:
            self.breaker.success()
        return response

    def close(self) -> None:
        self._inner.close()


class BreakerClient(httpx.Client):
    """An ``httpx.Client`` over a ``BreakerTransport`` that closes its connections when collected,
    as the openai SDK's own default client does: a chat model is dropped without a ``close``
    (LangChain models have none), and its sockets must not outlive it."""

    def __init__(self, breaker: CircuitBreaker) -> None:
        super().__init__(transport=BreakerTransport(breaker))

    def __del__(self) -> None:
        if not self.is_closed:
            with contextlib.suppress(Exception):  # at collection time there is no one to tell
                self.close()
