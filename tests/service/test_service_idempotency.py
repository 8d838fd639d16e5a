"""Retries are idempotent (issue 25 item 4) and a request may cap its own model calls (item 6)."""

from __future__ import annotations

from tests.service.conftest import Live

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
