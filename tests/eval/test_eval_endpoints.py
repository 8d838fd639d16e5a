"""The endpoint client against a plain OpenAI-compatible server (no selfrag extension), scripted
with ``httpx.MockTransport``: what it sends, what it makes of the reply, how failures are kept."""

from __future__ import annotations

import json

import httpx
import pytest

from eval.endpoints import Endpoint, ask_endpoint
from eval.predictions import Prediction, outcome_of
from selfrag.errors import UsageError

ROWS = [
    Prediction(id="a", question="Capital of Peru?", contexts=["Lima is the capital of Peru."], reference="Lima"),
    Prediction(id="b", question="Capital of Chile?", reference="Santiago"),
]


def test_a_plain_chat_server_gets_the_contexts_and_its_answers_are_taken_at_their_word() -> None:
    seen: list[dict[str, object]] = []

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append({"auth": request.headers.get("authorization"), **body})
        content = "Lima" if "Peru" in body["messages"][-1]["content"] else ""
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})

    endpoint = Endpoint("https://llm.example/v1", "chat", key="sk-test", model="gpt-x", concurrency=2)
    out = ask_endpoint(endpoint, ROWS, transport=httpx.MockTransport(reply))
    assert [p.answer for p in out] == ["Lima", ""]
    assert [outcome_of(p) for p in out] == ["answered", "abstained"]
    assert out[0].contexts == ["Lima is the capital of Peru."]  # no citations came back: the row's own
    first = next(s for s in seen if "Peru" in str(s["messages"]))
    assert first["auth"] == "Bearer sk-test" and first["model"] == "gpt-x"
    assert first["messages"][0]["role"] == "system" and "[1] Lima is the capital of Peru." in first["messages"][0]["content"]  # type: ignore[index]
    assert endpoint.route() == "https://llm.example/v1/chat/completions"
    assert endpoint.describe()["key"] == "<set>"


def test_http_errors_and_bad_bodies_are_recorded_per_case() -> None:
    def reply(request: httpx.Request) -> httpx.Response:
        if "Peru" in request.content.decode():
            return httpx.Response(503, text="upstream down")
        return httpx.Response(200, json={"unexpected": True})

    out = ask_endpoint(Endpoint("http://x", "chat", model="m"), ROWS, transport=httpx.MockTransport(reply))
    assert out[0].error == "HTTP 503: upstream down"
    assert out[1].error is not None and out[1].error.startswith("KeyError")


def test_endpoint_mistakes_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="needs a collection"):
        ask_endpoint(Endpoint("http://x", "answers"), ROWS)
    with pytest.raises(UsageError, match="needs --model"):
        ask_endpoint(Endpoint("http://x", "chat"), ROWS)


def test_a_live_openai_compatible_server_is_asked_over_http() -> None:
    """A real server on 127.0.0.1 (``tests/model_server.py``, no selfrag extension in its replies):
    every row is asked over HTTP and its reply taken as the answer, with no error recorded."""
    from tests.model_server import ModelServer, reply_for

    server = ModelServer()
    try:
        out = ask_endpoint(Endpoint(server.url, "chat", model="scripted", concurrency=2), ROWS)
    finally:
        server.stop()
    assert [p.error for p in out] == [None, None]
    expected = [reply_for({"messages": [{"role": "user", "content": r.question}]}) for r in ROWS]
    assert [p.answer for p in out] == expected and all(expected)
    assert [outcome_of(p) for p in out] == ["answered", "answered"]
