"""Limits: body size (413), concurrency and queue (429), deadline (504), dependencies down (503)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from langchain_core.messages import BaseMessage

from selfrag.errors import StoreError
from selfrag.service.runs import Run
from selfrag.testing import ScriptedChatModel
from tests.service.conftest import WAIT_S, Gate, Live

HELD = {"question": "Which movie has dinosaurs? HOLD", "collection": "movies"}
FAST = {"question": "Which movie has toys?", "collection": "movies"}


def _wait_for_metric(live: Live, line: str) -> None:
    deadline = time.monotonic() + WAIT_S
    with live.client() as http:
        while line not in http.get("/metrics").text:
            assert time.monotonic() < deadline, f"never saw {line!r}"
            time.sleep(0.02)


def test_a_declared_body_over_the_limit_is_413(make_live: Callable[..., Live]) -> None:
    live = make_live(max_body_bytes=2048)
    with live.client() as http:
        reply = http.post("/v1/answers", json={"question": "x" * 3000, "collection": "movies"})
    assert reply.status_code == 413
    assert reply.json()["error"]["code"] == "payload_too_large"
    # written as every other error is (compact JSON), not with spaces of its own
    assert reply.content.startswith(b'{"error":{"code":"payload_too_large"')


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


def _in_background(live: Live, body: dict[str, object], **kwargs: Any) -> tuple[threading.Thread, list[httpx.Response]]:
    replies: list[httpx.Response] = []

    def go() -> None:
        with live.client() as http:
            replies.append(http.post("/v1/answers", json=body, **kwargs))

    thread = threading.Thread(target=go)
    thread.start()
    return thread, replies


def test_over_the_concurrency_limit_is_429_with_retry_after(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=0)
    gate = Gate(live, monkeypatch)
    thread, replies = _in_background(live, HELD)
    gate.wait_held()
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
        assert reply.status_code == 429
        assert reply.json()["error"]["code"] == "overloaded"
        assert reply.headers["retry-after"] == "1"
    gate.release()
    thread.join()
    assert replies[0].status_code == 200
    with live.client() as http:
        assert http.post("/v1/answers", json=FAST).status_code == 200  # the slot came back
        assert 'selfrag_runs_rejected_total{reason="overloaded"} 1.0' in http.get("/metrics").text


def test_a_queued_request_waits_for_a_slot(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=1, queue_timeout_s=WAIT_S)
    gate = Gate(live, monkeypatch)
    held, held_replies = _in_background(live, HELD)
    gate.wait_held()
    queued, replies = _in_background(live, FAST)
    _wait_for_metric(live, "selfrag_runs_queued 1.0")
    assert queued.is_alive() and replies == []  # it waits: the only slot is held
    gate.release()
    queued.join()
    held.join()
    assert replies[0].status_code == 200 and held_replies[0].status_code == 200


def test_a_queue_timeout_is_429(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=4, queue_timeout_s=0.2)
    gate = Gate(live, monkeypatch)
    thread, _ = _in_background(live, HELD)
    gate.wait_held()
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)  # the slot stays held however long this takes
    gate.release()
    thread.join()
    assert reply.status_code == 429
    assert "0.2 s" in reply.json()["error"]["message"]


def test_the_deadline_is_504_and_the_run_stops(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(deadline_s=0.5)
    gate = Gate(live, monkeypatch)
    with live.client() as http:
        reply = http.post("/v1/answers", json={**HELD, "thread_id": "late"})
        # Answered while the generation is held (released only below): at the deadline, not when the node finished.
        assert reply.status_code == 504
        assert reply.json()["error"]["code"] == "deadline_exceeded"
        gate.release()
        _wait_for_metric(live, "selfrag_runs_in_progress 0.0")  # the worker has stopped
        assert http.get("/v1/threads/late").status_code == 404  # stopped before finalize: no thread


def test_calls_inside_a_run_see_the_request_deadline(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 25 item 6: a slow reranker or model call between two node boundaries is bounded by the
    # request's deadline (selfrag.deadline), not only by its own timeout.
    from selfrag.deadline import current_deadline

    live = make_live(deadline_s=7.0)
    model = live.engine.components.relevance.model  # type: ignore[attr-defined]
    inner = model.script
    seen: list[float | None] = []

    def script(task: str, messages: list[BaseMessage]) -> object:
        if task == "generate":
            deadline = current_deadline()
            seen.append(None if deadline is None else deadline - time.monotonic())
        return inner(task, messages)

    monkeypatch.setattr(model, "script", script)
    with live.client() as http:
        assert http.post("/v1/answers", json=FAST).status_code == 200
    assert seen and all(left is not None and 0 < left <= 7.0 for left in seen)


def test_store_down_is_503(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*args: object, **kwargs: object) -> None:
        raise StoreError("cannot connect to Chroma at http://127.0.0.1:1")

    monkeypatch.setattr(live.store, "get_collection", down)
    monkeypatch.setattr(live.store, "list_collections", down)
    with live.client() as http:
        reply = http.post("/v1/answers", json=FAST)
        assert reply.status_code == 503
        assert reply.json()["error"] == {"code": "store_unavailable", "message": "cannot connect to Chroma at http://127.0.0.1:1",
                                         "request_id": reply.headers["x-request-id"], "dependency": "vector_store"}
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
        # Issue 25 item 3: questions without a thread are still answered, so the instance stays in
        # the load balancer (200, degraded); asked about thread memory, it says 503 and why.
        ready = http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "degraded", ready.text
        assert ready.json()["checks"]["checkpoints"]["ok"] is False
        assert ready.json()["capabilities"]["threads"] == {"ready": False, "down": ["checkpoints"]}
        assert ready.json()["capabilities"]["answers"]["ready"] is True
        threads = http.get("/readyz", params={"capability": "threads"})
        assert threads.status_code == 503 and threads.json()["error"]["message"].startswith("threads unavailable: checkpoints")


def test_model_down_is_503_not_a_silent_abstention(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
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


def test_a_client_that_gives_up_stops_its_run(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=0)
    gate = Gate(live, monkeypatch)
    body = json.dumps({**HELD, "thread_id": "impatient"}).encode()
    head = f"POST /v1/answers HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    port = httpx.URL(live.url).port
    assert port is not None
    stopping = threading.Event()  # the server noticed the hang-up and asked the run to stop
    ask_to_stop = Run.cancel

    def cancel(run: Run) -> None:
        ask_to_stop(run)
        stopping.set()

    monkeypatch.setattr(Run, "cancel", cancel)
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(head.encode() + body)
        gate.wait_held()
    # The client hung up while its run was held. Once the server has noticed (it watches for the
    # disconnect on its own schedule), the run may go on: it must stop at its next node.
    assert stopping.wait(WAIT_S), "the server never noticed the client had gone"
    gate.release()
    _wait_for_metric(live, "selfrag_runs_in_progress 0.0")  # the abandoned run stopped and gave its slot back
    with live.client() as http:
        assert http.post("/v1/answers", json=FAST).status_code == 200
        assert http.get("/v1/threads/impatient").status_code == 404  # stopped before finalize: no thread
        metrics = http.get("/metrics").text
    assert 'selfrag_node_duration_seconds_count{node="check"} 1.0' in metrics  # only FAST was checked
