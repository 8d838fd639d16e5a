"""Concurrent turns on one thread over HTTP: each is stored, or refused with 409 ``thread_busy``.

Before turns were serialised, 20 concurrent answers on one ``thread_id`` all got 200 and the
thread kept 3 of them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.service.conftest import WAIT_S, Gate, Live


def _ask(live: Live, question: str, thread_id: str) -> httpx.Response:
    with live.client(timeout=120.0) as http:
        return http.post("/v1/answers", json={"question": question, "collection": "movies", "thread_id": thread_id})


def test_twenty_concurrent_turns_on_one_thread_are_all_stored(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=4, max_queued_runs=32, queue_timeout_s=60)
    questions = [f"Which movie has dinosaurs, take {n}?" for n in range(20)]
    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        replies = list(pool.map(lambda q: _ask(live, q, "chat"), questions))
    statuses = [r.status_code for r in replies]
    assert set(statuses) <= {200, 409}, [r.text for r in replies if r.status_code not in (200, 409)]
    with live.client() as http:
        turns = http.get("/v1/threads/chat").json()["turns"]
    answered = [q for q, r in zip(questions, replies, strict=True) if r.status_code == 200]
    assert sorted(t["question"] for t in turns) == sorted(answered)  # every 200 is stored, once
    # Turns wait for each other (up to workflow.turn_wait_s, 30 s): none needed refusing here.
    assert statuses == [200] * 20


def test_a_turn_that_would_wait_too_long_is_409_thread_busy(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live()
    live.engine.defaults = dataclasses.replace(live.engine.defaults, turn_wait_s=0.3)
    gate = Gate(live, monkeypatch)
    slow = threading.Thread(target=_ask, args=(live, "Which movie has dinosaurs? HOLD", "chat"))
    slow.start()
    try:
        gate.wait_held()  # the held turn holds the thread
        busy = _ask(live, "Which movie has toys?", "chat")
        other = _ask(live, "Which movie has toys?", "another-chat")
    finally:
        gate.release()
        slow.join(WAIT_S)
    assert busy.status_code == 409, busy.text
    assert busy.json()["error"]["code"] == "thread_busy"
    assert busy.headers["retry-after"] == "1"
    assert other.status_code == 200  # other threads are not held up
    with live.client() as http:
        turns = http.get("/v1/threads/chat").json()["turns"]
        assert [t["question"] for t in turns] == ["Which movie has dinosaurs? HOLD"]
        metrics = http.get("/metrics").text
    assert 'selfrag_runs_total{outcome="error:thread_busy"} 1.0' in metrics
