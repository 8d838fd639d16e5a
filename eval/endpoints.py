"""Answers from a deployed endpoint: selfrag's ``POST /v1/answers`` or any OpenAI-compatible
``POST /v1/chat/completions``, asked each question with a key and a concurrency limit.

Each question becomes a ``Prediction`` (``eval.predictions``), scored like any other:

- ``answers``: the body is ``{"question", "collection"}``; the reply's answer, short answer,
  confidence, outcome and cited documents' texts (the contexts) are taken as they are, so a
  served answer is scored exactly as the same answer from an engine run.
- ``chat``: ``model`` names the model (for selfrag's own chat face, the collection); a row that
  brings contexts sends them in a system message, so a plain LLM answers from the same passages.
  selfrag's extension field ``selfrag`` (outcome, citations) is read when the server sends it;
  any other server's answer counts as ``answered`` unless it is empty.

An HTTP error or a timeout is recorded on its case (``error``) and the run goes on; only a
mistake in the endpoint's own settings raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from eval.predictions import Prediction
from selfrag.errors import UsageError

__all__ = ["Endpoint", "EndpointKind", "ask_endpoint"]

EndpointKind = Literal["answers", "chat"]
_PATHS = {"answers": "/v1/answers", "chat": "/v1/chat/completions"}
_MAX_ERROR = 300


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask."""

    url: str
    """The server's base URL (with or without ``/v1``), or the full URL of its answers / chat-completions route."""
    kind: EndpointKind = "answers"
    key: str | None = None
    """Sent as ``Authorization: Bearer <key>``; never written to a manifest."""
    collection: str | None = None
    """``answers``: the collection for rows that name none."""
    model: str | None = None
    """``chat``: the ``model`` field (selfrag's chat face: a collection name)."""
    concurrency: int = 4
    """Requests in flight at once."""
    timeout_s: float = 300.0

    def route(self) -> str:
        """The URL to POST to: ``url`` itself when it names the route, else the route under it
        (an OpenAI-style base URL ending in ``/v1`` included)."""
        base = self.url.rstrip("/")
        path = _PATHS[self.kind]
        if base.endswith(path):
            return base
        return base + path.removeprefix("/v1") if base.endswith("/v1") else base + path

    def describe(self) -> dict[str, Any]:
        """What a manifest records (the key only as whether one was set)."""
        return {"url": self.route(), "kind": self.kind, "collection": self.collection, "model": self.model,
                "concurrency": self.concurrency, "key": "<set>" if self.key else None}


def ask_endpoint(
    endpoint: Endpoint,
    rows: Sequence[Prediction],
    *,
    transport: httpx.BaseTransport | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Prediction]:
    """Ask every row's question; return the predictions in the rows' order.

    Raises:
        UsageError: a bad kind or concurrency, or a row ``answers`` cannot route (no collection).
    """
    if endpoint.kind not in _PATHS:
        raise UsageError(f"endpoint kind must be answers or chat, not {endpoint.kind!r}")
    if endpoint.concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, got {endpoint.concurrency}")
    if endpoint.kind == "answers" and any(not (r.collection or endpoint.collection) for r in rows):
        raise UsageError("asking /v1/answers needs a collection: give --collection or a collection column")
    if endpoint.kind == "chat" and not endpoint.model:
        raise UsageError("asking a chat-completions endpoint needs --model")
    headers = {"Authorization": f"Bearer {endpoint.key}"} if endpoint.key else {}
    done = [0]
    with httpx.Client(headers=headers, timeout=endpoint.timeout_s, transport=transport, trust_env=False) as client:

        def one(row: Prediction) -> Prediction:
            started = time.perf_counter()
            try:
                reply = client.post(endpoint.route(), json=_body(endpoint, row))
                reply.raise_for_status()
                out = _prediction(endpoint.kind, row, reply.json())
            except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
                out = row.model_copy(update={"answer": "", "outcome": None, "error": _error(exc)})
            out = out.model_copy(update={"latency_s": round(time.perf_counter() - started, 4)})
            done[0] += 1
            if progress is not None:
                progress(done[0], len(rows))
            return out

        with ThreadPoolExecutor(max_workers=endpoint.concurrency, thread_name_prefix="selfrag-endpoint") as pool:
            return list(pool.map(one, rows))


def _body(endpoint: Endpoint, row: Prediction) -> dict[str, Any]:
    if endpoint.kind == "answers":
        return {"question": row.question, "collection": row.collection or endpoint.collection}
    messages = []
    if row.contexts:
        passages = "\n\n".join(f"[{n}] {text}" for n, text in enumerate(row.contexts, start=1))
        messages.append({"role": "system", "content": "Answer the question from these passages only; "
                         f"say you cannot answer if they do not say.\n\n{passages}"})
    messages.append({"role": "user", "content": row.question})
    return {"model": endpoint.model, "messages": messages, "temperature": 0}


def _prediction(kind: EndpointKind, row: Prediction, body: dict[str, Any]) -> Prediction:
    if kind == "answers":
        answer, extra = str(body["answer"]), body
    else:
        answer = str(body["choices"][0]["message"].get("content") or "")
        extra = body.get("selfrag") or {}
    citations = extra.get("citations") or []
    contexts = list(dict.fromkeys(str(c["text"]) for c in citations)) if citations else row.contexts
    outcome = extra.get("outcome")
    confidence = extra.get("confidence")
    return row.model_copy(update={
        "answer": answer, "contexts": contexts, "outcome": str(outcome) if outcome else None, "error": None,
        "short_answer": extra.get("short_answer") or None,
        "confidence": float(confidence) if isinstance(confidence, (int, float)) else None,
        "verdict": f"endpoint outcome: {outcome}" if outcome else None,
    })


def _error(exc: BaseException) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        text = f"HTTP {exc.response.status_code}: {exc.response.text.strip()[:200]}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:_MAX_ERROR]
