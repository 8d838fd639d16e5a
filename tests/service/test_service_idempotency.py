"""Retries are idempotent (issue 25 item 4), streamed ones included, and a request may cap its own model calls (item 6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.service.conftest import WAIT_S, Gate, Live

ASK = {"question": "Which movie has dinosaurs?", "collection": "movies", "thread_id": "idem"}


def test_a_retried_turn_returns_the_stored_one_and_adds_none(live: Live) -> None:
    with live.client() as http:
        first = http.post("/v1/answers", json=ASK, headers={"Idempotency-Key": "turn-1"})
        assert first.status_code == 200, first.text
        assert "idempotent-replayed" not in first.headers and "replayed" not in first.json()
        calls = live.engine.components.relevance.model.calls  # type: ignore[attr-defined]
        made = len(calls)
        again = http.post("/v1/answers", json=ASK, headers={"Idempotency-Key": "turn-1"})
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        assert again.json()["replayed"] is True
        assert (again.json()["answer"], again.json()["citations"]) == (first.json()["answer"], first.json()["citations"])
        assert len(calls) == made  # nothing ran
        other = http.post("/v1/answers", json=ASK, headers={"Idempotency-Key": "turn-2"})
        assert other.status_code == 200 and "replayed" not in other.json()
        assert len(http.get("/v1/threads/idem").json()["turns"]) == 2


def test_a_bad_idempotency_key_is_a_400(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers", json=ASK, headers={"Idempotency-Key": "x" * 201})
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "invalid_request"


def test_a_request_caps_its_model_calls(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers", json={"question": "Which movie has dinosaurs?", "collection": "movies",
                                               "max_llm_calls": 1})
    assert reply.status_code == 200, reply.text
    assert reply.json()["outcome"] == "budget_exhausted" and reply.json()["usage"]["calls"] == 1


def _stream(live: Live, body: dict[str, object], key: str) -> tuple[httpx.Response, list[tuple[str, dict[str, Any]]]]:
    with live.client() as http, http.stream("POST", "/v1/answers/stream", json=body, headers={"Idempotency-Key": key}) as reply:
        text = "".join(reply.iter_text())
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            events.append((fields["event"], json.loads(fields["data"])))
    return reply, events


def test_a_streamed_retry_is_replayed_with_the_header(live: Live) -> None:
    body = {**ASK, "thread_id": "idem-stream"}
    first, events = _stream(live, body, "s-1")
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    assert events[-1][0] == "result" and "replayed" not in events[-1][1]
    again, replayed = _stream(live, body, "s-1")
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert [name for name, _ in replayed] == ["answer_delta", "answer", "result"]
    assert replayed[-1][1]["replayed"] is True and replayed[-1][1]["answer"] == events[-1][1]["answer"]
    with live.client() as http:
        assert len(http.get("/v1/threads/idem-stream").json()["turns"]) == 1


def test_a_streamed_retry_sent_while_its_turn_runs_is_replayed_with_the_header(
    make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The retry waits for the turn it repeats (the thread's lock), and only then finds it stored:
    # the header follows what the run found, not what the thread held when the request came in.
    live = make_live()
    gate = Gate(live, monkeypatch)
    body = {"question": "Which movie has dinosaurs? HOLD", "collection": "movies", "thread_id": "idem-held"}
    with ThreadPoolExecutor(max_workers=2) as pool:
        original = pool.submit(_stream, live, body, "h-1")
        gate.wait_held()
        retry = pool.submit(_stream, live, body, "h-1")
        gate.release()
        first, _ = original.result(timeout=WAIT_S)
        again, replayed = retry.result(timeout=WAIT_S)
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true" and replayed[-1][1]["replayed"] is True
