"""Nothing internal reaches a client: no library's error text, no CLI advice, no traceback.

What a driver or library says (Chroma's "too many SQL variables", a model server's reply) is
logged with the request id; the client gets our own words, the code and that id.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import httpx
import pytest
from chromadb.api.models.Collection import Collection as ChromaCollection
from chromadb.errors import InternalError

from tests.service.conftest import Live

FAST = {"question": "Which movie has toys?", "collection": "movies"}
CHROMA_TEXT = "Error executing plan: Internal error: error returned from database: (code: 1) too many SQL variables"


def test_a_store_failure_is_503_in_our_words_and_logged_with_the_request_id(
    live: Live, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: ChromaCollection, *args: object, **kwargs: object) -> None:
        raise InternalError(CHROMA_TEXT)

    monkeypatch.setattr(ChromaCollection, "query", broken)
    with caplog.at_level(logging.WARNING, logger="selfrag.service"), live.client() as http:
        reply = http.post("/v1/answers", json=FAST, headers={"X-Request-ID": "req-42"})
    assert reply.status_code == 503, reply.text
    error = reply.json()["error"]
    assert error["code"] == "store_unavailable"
    assert "SQL" not in error["message"] and "InternalError" not in error["message"]
    assert error["message"].startswith("cannot query collection 'movies': the vector store failed")
    assert "request req-42" in error["message"]
    logged = [r.getMessage() for r in caplog.records if "req-42" in r.getMessage()]
    assert logged and "too many SQL variables" in logged[0]


def test_a_dead_model_is_503_without_its_error_text(
    live: Live, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from selfrag.testing import ScriptedChatModel

    def dead(task: str, messages: object) -> str:
        raise ConnectionError("connection refused by the model server at 10.0.0.7:8080")

    model = live.engine.components.relevance.model  # type: ignore[attr-defined]
    assert isinstance(model, ScriptedChatModel)
    monkeypatch.setattr(model, "script", dead)
    with caplog.at_level(logging.WARNING, logger="selfrag.service"), live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
    assert reply.status_code == 503, reply.text
    error = reply.json()["error"]
    assert error["code"] == "provider_unavailable"
    assert error["message"].startswith("the chat model cannot be reached")
    assert "10.0.0.7" not in error["message"] and "ConnectionError" not in error["message"]
    assert any("10.0.0.7" in r.getMessage() for r in caplog.records)


def test_a_filter_with_too_many_values_is_422_with_the_limit(live: Live) -> None:
    from selfrag.query import MAX_FILTER_VALUES

    names = [f"Director {n}" for n in range(40_000)]
    with live.client() as http:
        reply = http.post("/v1/answers", json={**FAST, "filter": {"director": {"$in": names}}})
        assert reply.status_code == 422, reply.text
        error = reply.json()["error"]
        assert error["code"] == "filter_invalid"
        assert f"at most {MAX_FILTER_VALUES}" in error["message"] and "40000" in error["message"]
        nested = {"$or": [{"director": {"$in": names[:MAX_FILTER_VALUES]}}, {"director": {"$nin": names[:1]}}]}
        assert http.post("/v1/answers", json={**FAST, "filter": nested}).status_code == 422
        # At the limit the store takes it: an answer (or an abstention), never a 503.
        at_limit = {"director": {"$in": ["John Lasseter", *names[: MAX_FILTER_VALUES - 1]]}}
        answered = http.post("/v1/answers", json={**FAST, "filter": at_limit})
        assert answered.status_code == 200, answered.text


def test_a_404_tells_an_http_client_what_to_do_over_http(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers", json={**FAST, "collection": "nowhere"})
        listed = http.get("/v1/collections/nowhere")
    for r in (reply, listed):
        assert r.status_code == 404
        message = r.json()["error"]["message"]
        assert "selfrag ingest" not in message and "--collection" not in message
        assert message == "collection 'nowhere' does not exist (create it with POST /v1/collections)"


def test_a_client_that_disconnects_is_counted_and_logs_no_error(
    make_live: Callable[..., Live], caplog: pytest.LogCaptureFixture
) -> None:
    live = make_live()
    with caplog.at_level(logging.INFO), live.client() as http, pytest.raises(httpx.ReadTimeout):
        http.post("/v1/answers", json={"question": "Which movie has dinosaurs? SLOW:1", "collection": "movies"}, timeout=0.3)
    with live.client() as http:
        deadline = time.monotonic() + 10
        # The run's counter and the request's (its 499) are recorded in separate steps: wait for both.
        while not ('outcome="error:client_disconnected"' in (text := http.get("/metrics").text)
                   and 'route="/v1/answers",status="499"' in text):
            assert time.monotonic() < deadline, text
            time.sleep(0.1)
    assert 'selfrag_runs_total{outcome="error:client_disconnected"} 1.0' in text
    assert 'route="/v1/answers",status="499"' in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage() for r in caplog.records]


def test_a_client_that_leaves_a_stream_is_counted_and_logs_no_error(
    make_live: Callable[..., Live], caplog: pytest.LogCaptureFixture
) -> None:
    live = make_live()
    body = {"question": "Which movie has dinosaurs? SLOW:1", "collection": "movies"}
    with caplog.at_level(logging.INFO), live.client() as http:
        with http.stream("POST", "/v1/answers/stream", json=body) as reply:
            for line in reply.iter_lines():
                if line.startswith("event: retrieve"):
                    break  # leave mid-run
        deadline = time.monotonic() + 10
        while 'outcome="error:client_disconnected"' not in (text := http.get("/metrics").text):
            assert time.monotonic() < deadline, text
            time.sleep(0.1)
    assert 'selfrag_runs_total{outcome="error:client_disconnected"} 1.0' in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage() for r in caplog.records]
