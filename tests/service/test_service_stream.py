"""POST /v1/answers/stream: node events as they finish, then the result; disconnect stops the run."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest
from httpx_sse import connect_sse

from tests.service.conftest import Gate, Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live


def events(live: Live, body: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    with live.client() as http, connect_sse(http, "POST", "/v1/answers/stream", json=body) as source:
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        return [(e.event, json.loads(e.data)) for e in source.iter_sse()]


def test_streams_one_event_per_node_then_the_result(live: Live) -> None:
    got = events(live, {"question": "Which movie has dinosaurs?", "collection": "movies"})
    names = [name for name, _ in got if name != "answer_delta"]  # the answer's tokens: test_service_tokens
    assert names == ["self_query", "retrieve", "grade", "generate", "check", "answer", "result"]
    by_name = dict(got)
    assert "dino" in [d["id"] for d in by_name["retrieve"]["documents"]]  # type: ignore[union-attr]
    assert by_name["grade"]["relevant"] == ["dino"]
    assert by_name["check"] == {**by_name["check"], "grounded": True, "useful": True}
    result = by_name["result"]
    assert result["outcome"] == "answered"
    assert [c["id"] for c in result["citations"]] == ["dino"]  # type: ignore[union-attr]


def test_a_rewrite_is_streamed_when_nothing_is_relevant(live: Live) -> None:
    got = events(live, {"question": "Which movie features submarines?", "collection": "movies", "max_rewrites": 1})
    names = [name for name, _ in got]
    assert "rewrite" in names
    assert names[-1] == "result"
    assert got[-1][1]["outcome"] == "abstained"


def test_errors_before_the_stream_are_plain_json(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers/stream", json={"question": "x?", "collection": "nowhere"})
        assert reply.status_code == 404
        assert reply.json()["error"]["code"] == "collection_not_found"
        bad = http.post("/v1/answers/stream", json={"question": "x?", "collection": "movies", "filter": {"nope": 1}})
        assert bad.status_code == 422


def test_a_deadline_during_the_stream_is_an_error_event(make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch) -> None:
    live = make_live(deadline_s=0.5)
    gate = Gate(live, monkeypatch)  # generation is held past the deadline, however fast the machine
    try:
        got = events(live, {"question": "Which movie has dinosaurs? HOLD", "collection": "movies"})
    finally:
        gate.release()
    assert got[-1][0] == "error"
    assert got[-1][1]["error"] == {**got[-1][1]["error"], "code": "deadline_exceeded", "status": 504}  # type: ignore[dict-item]


def test_disconnecting_stops_the_run_and_frees_its_slot(make_live: Callable[..., Live]) -> None:
    live = make_live(max_concurrent_runs=1, max_queued_runs=0)
    body = {"question": "Which movie has dinosaurs? SLOW:1", "collection": "movies", "thread_id": "gone"}
    with live.client() as http, connect_sse(http, "POST", "/v1/answers/stream", json=body) as source:
        first = next(source.iter_sse())
        assert first.event == "self_query"
    # The client is gone mid-run. The run holds its slot until it stops at the next node boundary
    # (after the slow generation), and never reaches finalize: nothing is stored for the thread.
    with live.client() as http:
        deadline = time.monotonic() + 10
        while True:
            reply = http.post("/v1/answers", json={"question": "Which movie has toys?", "collection": "movies"})
            if reply.status_code == 200:
                break
            assert reply.status_code == 429, reply.text
            assert time.monotonic() < deadline, "the abandoned run never released its slot"
            time.sleep(0.2)
        assert http.get("/v1/threads/gone").status_code == 404  # its only turn never finished: no thread
        metrics = http.get("/metrics").text
    assert 'selfrag_node_duration_seconds_count{node="check"} 1.0' in metrics  # only the second run checked


def test_stream_requires_a_valid_body(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/answers/stream", json={"collection": "movies"})
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "invalid_request"
    assert isinstance(reply, httpx.Response)
