"""An outage is an error over every face: a coded 503 naming the dependency and the request, an SSE
or chat-stream error event, a failure counted in the metrics, and never a turn stored: the thread
stays exactly as it was (a thread whose first turn failed does not exist)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from chromadb.api.models.Collection import Collection as ChromaCollection

from selfrag.service import KeyFile
from selfrag.testing import ScriptedChatModel
from tests.service.conftest import MOVIES, PLOTS, Live

Q = {"question": "Which movie has toys?", "collection": "movies"}


def _model_dies_before_generating(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    model = live.engine.components.relevance.model  # type: ignore[attr-defined]
    assert isinstance(model, ScriptedChatModel)
    script = model.script

    def dies(task: str, messages: Any) -> Any:
        if task == "generate":
            raise ConnectionError("connection refused by the model server at 10.0.0.7:8080")
        return script(task, messages)

    monkeypatch.setattr(model, "script", dies)


def test_a_model_down_mid_run_is_503_and_no_turn_is_stored(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    with live.client() as http:
        assert http.post("/v1/answers", json={**Q, "thread_id": "t"}).status_code == 200
        _model_dies_before_generating(live, monkeypatch)
        reply = http.post("/v1/answers", json={**Q, "question": "And which has dinosaurs?", "thread_id": "t"})
        assert reply.status_code == 503, reply.text
        error = reply.json()["error"]
        assert error["code"] == "provider_unavailable" and error["dependency"] == "model"
        assert error["request_id"] == reply.headers["x-request-id"]
        assert "10.0.0.7" not in reply.text
        assert len(http.get("/v1/threads/t").json()["turns"]) == 1  # only the answered turn
        metrics = http.get("/metrics").text
        assert 'selfrag_runs_total{outcome="error:provider_unavailable"} 1.0' in metrics


def test_a_failed_turn_on_another_collection_leaves_the_thread_to_the_keys_that_had_it(
    make_live: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys, everything = KeyFile().add(key_id="all", tenant="ops", read=["*"], write=["*"])
    keys, movies_only = keys.add(key_id="movies", tenant="ops", read=["movies"], write=[])
    live = make_live(keys=keys)
    live.store.create_collection("books", MOVIES).add(PLOTS)
    with live.client(everything) as http, live.client(movies_only) as movies:
        assert http.post("/v1/answers", json={**Q, "thread_id": "cx1"}).status_code == 200
        _model_dies_before_generating(live, monkeypatch)
        failed = http.post("/v1/answers", json={**Q, "collection": "books", "thread_id": "cx1"})
        assert failed.status_code == 503, failed.text
        monkeypatch.undo()
        thread = movies.get("/v1/threads/cx1")
        assert thread.status_code == 200, thread.text
        assert (thread.json()["collection"], thread.json()["collections"]) == ("movies", ["movies"])
        assert len(thread.json()["turns"]) == 1
        follow = movies.post("/v1/answers", json={**Q, "question": "And which has dinosaurs?", "thread_id": "cx1"})
        assert follow.status_code == 200, follow.text
        assert follow.json()["collections"] == ["movies"]


def test_a_model_down_mid_stream_is_an_error_event(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    _model_dies_before_generating(live, monkeypatch)
    with live.client() as http, http.stream("POST", "/v1/answers/stream", json={**Q, "thread_id": "s"}) as reply:
        text = "".join(reply.iter_text())
    events = [block for block in text.split("\r\n\r\n") if block.strip()]
    assert "event: result" not in text
    last = events[-1]
    assert "event: error" in last
    error = json.loads(last.split("data: ", 1)[1])["error"]
    assert error["code"] == "provider_unavailable" and error["status"] == 503 and error["dependency"] == "model"
    with live.client() as http:
        assert http.get("/v1/threads/s").status_code == 404  # its first turn failed: no thread


def test_a_model_down_is_a_503_in_openai_shape_and_a_stream_error_chunk(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    _model_dies_before_generating(live, monkeypatch)
    body = {"model": "movies", "messages": [{"role": "user", "content": "Which movie has toys?"}]}
    with live.client() as http:
        reply = http.post("/v1/chat/completions", json=body)
        assert reply.status_code == 503, reply.text
        error = reply.json()["error"]
        assert error["code"] == "provider_unavailable" and error["type"] and error["request_id"]
        with http.stream("POST", "/v1/chat/completions", json={**body, "stream": True}) as streamed:
            text = "".join(streamed.iter_text())
    assert '"finish_reason":"stop"' not in text.replace(" ", "")
    chunk = json.loads([line for line in text.splitlines() if line.startswith("data: {")][-1][6:])
    assert chunk["error"]["code"] == "provider_unavailable"


def test_chroma_down_on_the_per_resource_path_is_503_not_an_abstention(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(self: ChromaCollection, *args: object, **kwargs: object) -> None:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    with live.client() as http:
        monkeypatch.setattr(ChromaCollection, "query", down)
        body = {"question": "Which movie has toys?", "collections": ["movies"], "search": {"movies": {"k": 2}},
                "thread_id": "r"}
        reply = http.post("/v1/answers", json=body)
        assert reply.status_code == 503, reply.text
        error = reply.json()["error"]
        assert error["code"] == "store_unavailable" and error["dependency"] == "vector_store"
        assert "Chroma server cannot be reached" in error["message"]
        assert http.get("/v1/threads/r").status_code == 404


@pytest.mark.parametrize("failure", [
    lambda: __import__("selfrag.breaker", fromlist=["BreakerOpen"]).BreakerOpen("embeddings http://127.0.0.1:1/v1", 1.0),
    lambda: ConnectionError("[Errno 111] Connection refused"),
])
def test_an_embedding_server_down_during_an_ingest_is_503_not_500(live: Live, monkeypatch: pytest.MonkeyPatch,
                                                                  failure: Any) -> None:
    # Found by bench/soak.py: an open breaker raised through the OpenAI client reached the generic
    # handler and answered 500. A transport failure anywhere is the dependency's 503.
    def down(self: Any, texts: list[str]) -> list[list[float]]:
        raise failure()

    embeddings = type(live.store._embeddings)  # the store's embeddings, whatever their class
    monkeypatch.setattr(embeddings, "embed_documents", down)
    with live.client() as http:
        reply = http.post("/v1/collections/movies/documents", json={"documents": [{"id": "x", "text": "A new film."}]})
    assert reply.status_code == 503, reply.text
    assert reply.json()["error"]["dependency"] == "embeddings" and "127.0.0.1" not in reply.text


def test_a_lexical_index_that_cannot_be_read_is_503_store_unavailable(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI's engine searches the lexical index under the data directory too (hybrid retrieval).
    from selfrag.retrieval import LexicalIndexes
    from tests.denied import deny

    lexical = live.settings.home / "lexical"
    monkeypatch.setattr(live.engine.components.retrieval, "indexes", LexicalIndexes(lexical))
    deny(monkeypatch, lexical)
    with live.client() as http:
        reply = http.post("/v1/answers", json={**Q, "thread_id": "x"})
        assert reply.status_code == 503, reply.text
        error = reply.json()["error"]
        assert error["code"] == "store_unavailable"
        assert error["message"].startswith(f"the lexical index {lexical / 'movies.sqlite3'} cannot be read or written")
        assert "unable to open" not in reply.text
        assert http.get("/v1/threads/x").status_code == 404
