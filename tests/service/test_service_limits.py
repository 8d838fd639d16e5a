"""Limits: body size (413), concurrency and queue (429), deadline (504), dependencies down (503)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from selfrag.errors import StoreError
from tests.service.conftest import Live

SLOW = {"question": "Which movie has dinosaurs? SLOW:1.5", "collection": "movies"}
FAST = {"question": "Which movie has toys?", "collection": "movies"}


def test_a_declared_body_over_the_limit_is_413(make_live: Callable[..., Live]) -> None:
    live = make_live(max_body_bytes=2048)
    with live.client() as http:
        reply = http.post("/v1/answers", json={"question": "x" * 3000, "collection": "movies"})
    assert reply.status_code == 413
    assert reply.json()["error"]["code"] == "payload_too_large"


def test_a_streamed_body_over_the_limit_is_413(make_live: Callable[..., Live]) -> None:
    live = make_live(max_body_bytes=2048)

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        yield b'{"documents": [{"text": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}]}'

    with live.client() as http:
        reply = http.post("/v1/collections/movies/documents", content=chunks(), headers={"content-type": "application/json"})
        assert reply.status_code == 413
        assert reply.json()["error"]["code"] == "payload_too_large"
        assert http.get("/v1/collections/movies").json()["count"] == 4  # nothing stored


def _in_background(live: Live, body: dict[str, object]) -> tuple[threading.Thread, list[httpx.Response]]:
    replies: list[httpx.Response] = []

    def go() -> None:
        with live.client() as http:
            replies.append(http.post("/v1/answers", json=body))

    thread = threading.Thread(target=go)
    thread.start()
    return thread, replies


def _wait_busy(live: Live) -> None:
    deadline = time.monotonic() + 5
    with live.client() as http:
        while "selfrag_runs_in_progress 1.0" not in http.get("/metrics").text:
            assert time.monotonic() < deadline
            time.sleep(0.02)


def test_over_the_concurrency_limit_is_429_with_retry_after(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=0)
    thread, replies = _in_background(live, SLOW)
    _wait_busy(live)
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
        assert reply.status_code == 429
        assert reply.json()["error"]["code"] == "overloaded"
        assert reply.headers["retry-after"] == "1"
    thread.join()
    assert replies[0].status_code == 200
    with live.client() as http:
        assert http.post("/v1/answers", json=FAST).status_code == 200  # the slot came back
        assert 'selfrag_runs_rejected_total{reason="overloaded"} 1.0' in http.get("/metrics").text


def test_a_queued_request_waits_for_a_slot(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=1, queue_timeout_s=10)
    thread, replies = _in_background(live, SLOW)
    _wait_busy(live)
    with live.client() as http:
        started = time.monotonic()
        reply = http.post("/v1/answers", json=FAST)
    assert reply.status_code == 200
    assert time.monotonic() - started > 0.5  # it waited for the slow run
    thread.join()
    assert replies[0].status_code == 200


def test_a_queue_timeout_is_429(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=4, queue_timeout_s=0.2)
    thread, _ = _in_background(live, SLOW)
    _wait_busy(live)
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
    thread.join()
    assert reply.status_code == 429
    assert "0.2 s" in reply.json()["error"]["message"]


def test_the_deadline_is_504_and_the_run_stops(make_live: Callable[..., Live]) -> None:
    live = make_live(deadline_s=0.5)
    with live.client() as http:
        started = time.monotonic()
        reply = http.post("/v1/answers", json={**SLOW, "thread_id": "late"})
        elapsed = time.monotonic() - started
        assert reply.status_code == 504
        assert reply.json()["error"]["code"] == "deadline_exceeded"
        assert elapsed < 1.4  # answered at the deadline, not when the slow node finished
        time.sleep(1.5)
        assert http.get("/v1/threads/late").json()["turns"] == []  # stopped before finalize


def test_store_down_is_503(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: object, **kwargs: object) -> None:
        raise StoreError("cannot connect to Chroma at http://127.0.0.1:1")

    monkeypatch.setattr(live.store, "get_collection", down)
    monkeypatch.setattr(live.store, "list_collections", down)
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
        assert reply.status_code == 503
        assert reply.json()["error"] == {"code": "store_unavailable", "message": "cannot connect to Chroma at http://127.0.0.1:1"}
        ready = http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["error"]["code"] == "not_ready"
        assert ready.json()["checks"]["store"]["ok"] is False
        assert http.get("/healthz").status_code == 200  # alive, just not ready


def test_checkpoint_store_down_is_503(live: Live) -> None:
    from workflows.factory import close_checkpointer

    assert live.engine.checkpointer is not None
    close_checkpointer(live.engine.checkpointer)  # the database goes away under the server
    with live.client() as http:
        reply = http.post("/v1/answers", json={**FAST, "thread_id": "t"})
        assert reply.status_code == 503, reply.text
        assert reply.json()["error"]["code"] == "store_unavailable"
        assert reply.json()["error"]["message"].startswith("checkpoint store unavailable")
        assert http.get("/v1/threads/t").status_code == 503
        assert http.post("/v1/answers", json=FAST).status_code == 200  # no thread: no checkpoints needed
        ready = http.get("/readyz")
        assert ready.status_code == 503 and ready.json()["checks"]["checkpoints"]["ok"] is False


def test_model_down_is_503_not_a_silent_abstention(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfrag.testing import ScriptedChatModel

    def dead(task: str, messages: object) -> str:
        raise ConnectionError("connection refused by the model server")

    # Every component shares one model object; make all its calls fail.
    model = live.engine.components.relevance.model  # type: ignore[attr-defined]
    assert isinstance(model, ScriptedChatModel)
    monkeypatch.setattr(model, "script", dead)
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
    assert reply.status_code == 503, reply.text
    error = reply.json()["error"]
    assert error["code"] == "provider_unavailable"
    assert "connection refused" not in error["message"]  # the model's own text is logged, never sent


def test_a_client_that_gives_up_stops_its_run(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=0)
    with live.client() as http, pytest.raises(httpx.ReadTimeout):
        http.post("/v1/answers", json={**SLOW, "thread_id": "impatient"}, timeout=0.4)
    with live.client() as http:
        deadline = time.monotonic() + 10
        while http.post("/v1/answers", json=FAST).status_code == 429:  # until the slot comes back
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert http.get("/v1/threads/impatient").json()["turns"] == []  # stopped before finalize
        metrics = http.get("/metrics").text
    assert 'selfrag_node_duration_seconds_count{node="check"} 1.0' in metrics  # only FAST was checked
