"""The ``http`` reranker: a ``/v1/rerank``-style endpoint (llama.cpp ``--reranking``, vLLM, TEI, Cohere, Jina).

Two request bodies exist in the wild, chosen by ``request_format``:

- ``cohere`` (Cohere, Jina, vLLM, llama.cpp's server): ``{"model", "query", "documents", "top_n"}``;
- ``tei`` (Hugging Face text-embeddings-inference, ``POST /rerank``): ``{"query", "texts"}``.

Either answer shape is understood: ``{"results": [{"index", "relevance_score"}]}`` (Cohere, Jina,
vLLM, llama.cpp) or a bare ``[{"index", "score"}]`` (TEI). Transport failures, timeouts, 429 and 5xx
are retried (tenacity, exponential back-off); anything else, or an answer that is not a ranking of
the candidates sent, is a ``ProviderError`` whose message is ours and whose ``detail`` keeps what
the server said and its URL (for the log, never for a client).

Every call is bounded as a whole, not per read: ``timeout_s`` (or the request's deadline, when
sooner: ``selfrag.deadline``) covers connecting, every retry, its back-off and reading the answer,
so a server that trickles bytes cannot hold a run slot. Answers over ``max_response_bytes`` are
refused unread, and scores that are not finite numbers are not a ranking.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal, NamedTuple

import httpx
from pydantic import AliasChoices, BaseModel, Field, TypeAdapter, ValidationError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_before_delay, wait_exponential

from selfrag.deadline import budget
from selfrag.errors import ConfigError, ProviderError, describe
from selfrag.rerank.base import Reranked, check_ranking

__all__ = ["HttpReranker", "HttpRetry", "RequestFormat"]

RequestFormat = Literal["cohere", "tei"]


class HttpRetry(NamedTuple):
    """How a failing rerank request is retried."""

    attempts: int = 3
    """Tries in all (1: no retry)."""
    initial_s: float = 0.5
    """First back-off; doubles each retry."""
    max_s: float = 4.0


class _Item(BaseModel):
    index: int
    score: float = Field(validation_alias=AliasChoices("relevance_score", "score"), allow_inf_nan=False)


class _Results(BaseModel):
    results: list[_Item]


_BARE = TypeAdapter(list[_Item])


class _Retryable(Exception):
    def __init__(self, why: str, detail: str) -> None:
        super().__init__(why)
        self.why = why
        self.detail = detail


class HttpReranker:
    """Reranks through a rerank server.

    Args:
        base_url: The server's root (``http://127.0.0.1:8080``); ``path`` is appended.
        model: The model name sent (``cohere`` format); None omits it (single-model servers).
        api_key: Sent as ``Authorization: Bearer``; None sends none.
        path: ``/v1/rerank`` (Cohere-style servers) or ``/rerank`` (TEI).
        request_format: ``cohere`` or ``tei`` (see the module docstring).
        timeout_s: Per call, retries and back-off included (shortened by the request's deadline).
        retry: Attempts and back-off.
        max_response_bytes: Larger answers are refused unread (1 MiB: a ranking of hundreds of
            candidates is a few kilobytes).
        transport: An httpx transport (tests); None is the network.
    """

    name = "http"

    def __init__(
        self,
        base_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        path: str = "/v1/rerank",
        request_format: RequestFormat = "cohere",
        timeout_s: float = 30.0,
        retry: HttpRetry = HttpRetry(),
        max_response_bytes: int = 1 << 20,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"http reranker: base URL must start with http:// or https://, got {base_url!r}")
        if request_format not in ("cohere", "tei"):
            raise ConfigError(f"http reranker: request_format must be cohere or tei, got {request_format!r}")
        if retry.attempts < 1 or timeout_s <= 0 or max_response_bytes < 1:
            raise ConfigError("http reranker: attempts must be at least 1, the timeout and the size limit positive")
        self.url = base_url.rstrip("/") + "/" + path.lstrip("/")
        self.model = model
        self.request_format = request_format
        self.retry = retry
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s, headers=headers, transport=transport)

    def close(self) -> None:
        """Close the connection pool (idempotent). Whoever builds the reranker closes it: the
        engine's components (``Components.close``), the service at shutdown, the CLI after a run."""
        self._client.close()

    @property
    def closed(self) -> bool:
        return self._client.is_closed

    def __enter__(self) -> HttpReranker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[Reranked]:
        if not documents:
            return []
        if self.closed:
            # httpx would raise a bare RuntimeError; the rerank stage keeps the fused order on ours.
            raise ProviderError("the rerank client is closed", detail=self.url)
        body: dict[str, object]
        if self.request_format == "tei":
            body = {"query": query, "texts": list(documents)}
        else:
            body = {"query": query, "documents": list(documents), "top_n": top_n or len(documents)}
            if self.model:
                body["model"] = self.model
        ends = time.monotonic() + budget(self.timeout_s)
        attempts = 0

        def attempt() -> bytes:
            nonlocal attempts
            attempts += 1
            return self._post(body, ends)

        retrying = Retrying(
            stop=stop_after_attempt(self.retry.attempts) | stop_before_delay(max(ends - time.monotonic(), 0.0)),
            wait=wait_exponential(multiplier=self.retry.initial_s, max=self.retry.max_s),
            retry=retry_if_exception(lambda e: isinstance(e, _Retryable)),
            sleep=lambda s: time.sleep(max(0.0, min(s, ends - time.monotonic()))),
            reraise=True,
        )
        try:
            payload = retrying(attempt)
        except _Retryable as exc:
            raise ProviderError(
                f"the rerank server {exc.why} after {attempts} attempt(s)", detail=f"{self.url}: {exc.detail}"
            ) from None
        items = self._parse(payload)
        ranking = check_ranking([Reranked(i.index, i.score) for i in items], len(documents), self.name)
        ranking.sort(key=lambda r: (-r.score, r.index))  # servers sort, but a TEI-style list need not be
        return ranking[:top_n]

    def _post(self, body: dict[str, object], ends: float) -> bytes:
        left = ends - time.monotonic()
        if left <= 0:
            raise _Retryable("did not answer in time", "no time left before the deadline")
        try:
            with self._client.stream("POST", self.url, json=body, timeout=left) as response:
                content = self._read(response, ends)
        except httpx.TimeoutException as exc:
            raise _Retryable("did not answer in time", describe(exc)) from exc
        except httpx.TransportError as exc:
            raise _Retryable("cannot be reached", describe(exc)) from exc
        text = content[:300].decode("utf-8", "replace")
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(f"failed (HTTP {response.status_code})", text)
        if response.status_code != 200:
            raise ProviderError(
                f"the rerank server refused the request (HTTP {response.status_code})", detail=f"{self.url}: {text}"
            )
        return content

    def _read(self, response: httpx.Response, ends: float) -> bytes:
        """The body, read against the whole call's deadline and the size limit (each read's own
        timeout would let a trickling server go on for ever)."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_response_bytes:
            raise self._too_large()
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if time.monotonic() >= ends:
                raise _Retryable("did not answer in time", f"still reading the answer after {size} bytes")
        return b"".join(chunks)

    def _too_large(self) -> ProviderError:
        limit = self.max_response_bytes
        shown = f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit} bytes"
        return ProviderError(f"the rerank server sent an answer over {shown}; refused", detail=self.url)

    def _parse(self, payload: bytes) -> list[_Item]:
        try:
            if payload.lstrip().startswith(b"["):
                return _BARE.validate_json(payload)
            return _Results.model_validate_json(payload).results
        except ValidationError as exc:
            raise ProviderError(
                "the rerank server answered with something that is not a ranking",
                detail=f"{self.url}: {describe(exc, 300)}",
            ) from None
