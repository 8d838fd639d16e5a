"""Operations endpoints and the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.service.conftest import Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live


def test_health_and_readiness(live: Live) -> None:
    with live.client() as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        ready = http.get("/readyz")
        assert ready.status_code == 200
        checks = ready.json()["checks"]
        assert checks["store"] == {"ok": True}
        assert checks["checkpoints"] == {"ok": True}
        assert checks["model"]["ok"] is True
        assert ready.json()["status"] == "ready"
        assert all(c["ready"] for c in ready.json()["capabilities"].values())


def test_readiness_answers_within_a_second_when_a_dependency_hangs(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 25 item 3: the checks run at once, each with its own limit; a hung store is reported
    # down by name, in about a second, not after the load balancer's own timeout.
    import threading
    import time

    release = threading.Event()

    def hang() -> list[str]:
        release.wait(30)
        return []

    monkeypatch.setattr(live.store, "list_collections", hang)
    try:
        with live.client() as http:
            start = time.monotonic()
            ready = http.get("/readyz")
            took = time.monotonic() - start
    finally:
        release.set()
    assert ready.status_code == 503 and ready.json()["error"]["code"] == "not_ready"
    assert ready.json()["capabilities"]["answers"]["down"] == ["store"]
    assert "did not answer within" in ready.json()["checks"]["store"]["error"]
    assert took < 1.5


def test_metrics_count_requests_nodes_llm_and_outcomes(make_live: Callable[..., Live]) -> None:
    live = make_live()  # counts from zero
    with live.client() as http:
        assert http.post("/v1/answers", json={"question": "Which movie has dinosaurs?", "collection": "movies"}).status_code == 200
        assert http.get("/v1/collections/nowhere").status_code == 404
        text = http.get("/metrics").text
    assert 'selfrag_http_requests_total{method="POST",route="/v1/answers",status="200"} 1.0' in text
    # route templates, never raw names: no label series per collection
    assert 'selfrag_http_requests_total{method="GET",route="/v1/collections/{name}",status="404"} 1.0' in text
    assert "nowhere" not in text
    assert 'selfrag_http_request_duration_seconds_count{method="POST",route="/v1/answers"} 1.0' in text
    for node in ("self_query", "retrieve", "grade_documents", "generate", "check"):
        assert f'selfrag_node_duration_seconds_count{{node="{node}"}} 1.0' in text
    assert 'selfrag_runs_total{outcome="answered"} 1.0' in text
    calls = next(line for line in text.splitlines() if line.startswith("selfrag_llm_calls_total "))
    assert float(calls.split()[1]) >= 4  # relevance per document, generation, two checks
    assert "selfrag_runs_in_progress 0.0" in text


def test_openapi_documents_every_endpoint_and_error_shape(live: Live) -> None:
    with live.client() as http:
        spec = http.get("/openapi.json").json()
    paths = spec["paths"]
    assert {
        "/v1/answers", "/v1/answers/stream", "/v1/threads/{thread_id}", "/v1/collections", "/v1/collections/{name}",
        "/v1/collections/{name}/documents", "/v1/collections/{name}/documents/{doc_id}", "/healthz", "/readyz", "/metrics",
    } <= set(paths)
    answer = paths["/v1/answers"]["post"]
    assert {"400", "401", "403", "404", "413", "422", "429", "503", "504"} <= set(answer["responses"])
    assert answer["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
    question = spec["components"]["schemas"]["AnswerRequest"]["properties"]["question"]
    assert (question["minLength"], question["maxLength"]) == (1, 4000)
    upload = paths["/v1/collections/{name}/documents"]["post"]["requestBody"]["content"]
    assert set(upload) == {"application/json", "multipart/form-data"}


def test_every_response_carries_a_request_id(live: Live) -> None:
    with live.client() as http:
        mine = http.get("/healthz", headers={"X-Request-ID": "client-abc.1"})
        generated = http.get("/v1/collections/nowhere")
        hostile = http.get("/healthz", headers={"X-Request-ID": "x" * 500})
    assert mine.headers["x-request-id"] == "client-abc.1"
    assert len(generated.headers["x-request-id"]) == 32
    assert hostile.headers["x-request-id"] != "x" * 500
