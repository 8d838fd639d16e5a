"""The ``http`` reranker against a real HTTP server on 127.0.0.1 speaking the rerank protocols."""

from __future__ import annotations

import gc
import json
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from selfrag.errors import ConfigError, ProviderError
from selfrag.rerank import HttpReranker, HttpRetry

DOCS = ["a cat sat", "the wormhole near Saturn", "dinosaurs on an island", "astronauts in a wormhole"]


def overlap_scores(query: str, texts: list[str]) -> list[float]:
    """What the fake model scores: shared words over the query's words."""
    q = set(query.lower().split())
    return [len(q & set(t.lower().split())) / len(q) for t in texts]


class RerankServer:
    """A rerank server: ``/v1/rerank`` (Cohere/Jina/vLLM/llama.cpp shape) and ``/rerank`` (TEI shape).

    ``script`` may override a request's answer with ``(status, body)``, e.g. to fail the first tries.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.script: Callable[[int], tuple[int, bytes] | None] = lambda n: None
        self.delay_s = 0.0
        self.trickle_s = 0.0
        """Seconds between the answer's bytes (a server that trickles its answer)."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, dict(self.headers), body))
                time.sleep(owner.delay_s)
                scripted = owner.script(len(owner.requests))
                if scripted is None:
                    scripted = owner.answer(self.path, body)
                status, payload = scripted
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if owner.trickle_s <= 0:
                    self.wfile.write(payload)
                    return
                for i in range(len(payload)):
                    try:
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up
                    time.sleep(owner.trickle_s)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        if path == "/v1/rerank":
            scores = overlap_scores(body["query"], body["documents"])
            order = sorted(range(len(scores)), key=lambda i: -scores[i])[: body.get("top_n") or len(scores)]
            results = [{"index": i, "relevance_score": scores[i], "document": {"text": body["documents"][i]}} for i in order]
            return 200, json.dumps({"id": "r1", "results": results, "usage": {"total_tokens": 9}}).encode()
        if path == "/rerank":  # TEI: every text, in the order given (not sorted)
            scores = overlap_scores(body["query"], body["texts"])
            return 200, json.dumps([{"index": i, "score": s} for i, s in enumerate(scores)]).encode()
        return 404, b'{"error": "not found"}'


@pytest.fixture
def rerank_server() -> Iterator[RerankServer]:
    """A running rerank server on 127.0.0.1 (other test modules import this fixture)."""
    srv = RerankServer()
    srv.thread.start()
    yield srv
    srv.server.shutdown()
    srv.server.server_close()
    srv.thread.join()


FAST = HttpRetry(attempts=3, initial_s=0.01, max_s=0.02)


def test_cohere_style_endpoint(rerank_server: RerankServer) -> None:
    reranker = HttpReranker(rerank_server.url, model="bge-reranker-v2-m3", api_key="sk-test", retry=FAST)
    ranking = reranker.rerank("astronauts wormhole", DOCS, top_n=2)
    assert [(r.index, r.score) for r in ranking] == [(3, 1.0), (1, 0.5)]
    path, headers, body = rerank_server.requests[0]
    assert path == "/v1/rerank" and headers["Authorization"] == "Bearer sk-test"
    assert body == {"query": "astronauts wormhole", "documents": DOCS, "top_n": 2, "model": "bge-reranker-v2-m3"}
    reranker.close()


def test_tei_endpoint_with_an_unsorted_bare_list(rerank_server: RerankServer) -> None:
    reranker = HttpReranker(rerank_server.url + "/", path="/rerank", request_format="tei", retry=FAST)
    ranking = reranker.rerank("dinosaurs island cat", DOCS)
    assert [r.index for r in ranking] == [2, 0, 1, 3]  # by score; ties in the order given
    assert rerank_server.requests[0][1].get("Authorization") is None
    assert rerank_server.requests[0][2] == {"query": "dinosaurs island cat", "texts": DOCS}
    assert reranker.rerank("x", []) == [] and len(rerank_server.requests) == 1


def test_overloaded_server_is_retried(rerank_server: RerankServer) -> None:
    rerank_server.script = lambda n: (503, b"busy") if n == 1 else ((429, b"slow down") if n == 2 else None)
    ranking = HttpReranker(rerank_server.url, retry=FAST).rerank("wormhole", DOCS, top_n=1)
    assert [r.index for r in ranking] == [1] and len(rerank_server.requests) == 3


def test_server_errors_after_retries_are_one_line_errors(rerank_server: RerankServer) -> None:
    rerank_server.script = lambda n: (500, b'{"error": "CUDA out of memory at /srv/model"}')
    with pytest.raises(ProviderError) as err:
        HttpReranker(rerank_server.url, retry=FAST).rerank("wormhole", DOCS)
    assert len(rerank_server.requests) == 3
    assert err.value.code == "provider_unavailable" and err.value.status == 503
    assert err.value.one_line() == "the rerank server failed (HTTP 500) after 3 attempt(s)"
    assert "CUDA" in (err.value.detail or "") and "/srv" not in err.value.message


@pytest.mark.parametrize(
    ("status", "payload", "message"),
    [
        (400, b'{"error": "bad"}', "the rerank server refused the request (HTTP 400)"),
        (200, b'{"results": [{"index": 9, "relevance_score": 1.0}]}', "the http reranker answered with an invalid ranking of 4 candidates"),
        (200, b'{"data": []}', "the rerank server answered with something that is not a ranking"),
        (200, b"not json", "the rerank server answered with something that is not a ranking"),
    ],
)
def test_bad_answers_are_not_retried(rerank_server: RerankServer, status: int, payload: bytes, message: str) -> None:
    rerank_server.script = lambda n: (status, payload)
    with pytest.raises(ProviderError) as err:
        HttpReranker(rerank_server.url, retry=FAST).rerank("wormhole", DOCS)
    assert err.value.one_line() == message and len(rerank_server.requests) == 1


def test_timeout_and_unreachable(rerank_server: RerankServer) -> None:
    rerank_server.delay_s = 0.5
    # The timeout covers the whole call: a slow answer uses it up, so it is not retried.
    with pytest.raises(ProviderError, match="did not answer in time after 1 attempt"):
        HttpReranker(rerank_server.url, timeout_s=0.1, retry=HttpRetry(2, 0.01, 0.02)).rerank("wormhole", DOCS)
    rerank_server.delay_s = 0.0
    rerank_server.server.shutdown()
    rerank_server.server.server_close()
    with pytest.raises(ProviderError, match="cannot be reached after 1 attempt"):
        HttpReranker(rerank_server.url, retry=HttpRetry(1)).rerank("wormhole", DOCS)
    rerank_server.server = ThreadingHTTPServer(("127.0.0.1", 0), rerank_server.server.RequestHandlerClass)  # for the fixture
    rerank_server.thread = threading.Thread(target=rerank_server.server.serve_forever, daemon=True)
    rerank_server.thread.start()


def test_bad_configuration() -> None:
    with pytest.raises(ConfigError):
        HttpReranker("127.0.0.1:8080")
    with pytest.raises(ConfigError):
        HttpReranker("http://127.0.0.1:8080", request_format="jina")  # type: ignore[arg-type]


def test_closing_leaves_no_open_connection(rerank_server: RerankServer) -> None:
    # A reranker left open keeps its kept-alive socket until the collector finds it (ResourceWarning:
    # "unclosed <socket.socket ...>"); closed, nothing is left and a late call is a provider error.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with HttpReranker(rerank_server.url, retry=FAST) as reranker:
            assert reranker.rerank("wormhole", DOCS, top_n=1) and not reranker.closed
        assert reranker.closed
        reranker.close()  # idempotent
        with pytest.raises(ProviderError, match="the rerank client is closed"):
            reranker.rerank("wormhole", DOCS)
        del reranker
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_trickling_server_is_bounded_by_the_whole_call_timeout(rerank_server: RerankServer) -> None:
    # Issue 25 item 6: the timeout applied per read, so a server sending a byte every 0.2 s held a
    # run slot for minutes. The timeout now bounds the whole call, retries included.
    rerank_server.trickle_s = 0.2
    start = time.monotonic()
    with pytest.raises(ProviderError, match="did not answer in time"):
        HttpReranker(rerank_server.url, timeout_s=1.0, retry=HttpRetry(3, 0.01, 0.02)).rerank("wormhole", DOCS)
    assert time.monotonic() - start < 2.5


def test_the_request_deadline_bounds_the_call_and_its_retries(rerank_server: RerankServer) -> None:
    from selfrag.deadline import deadline_scope

    rerank_server.delay_s = 1.0
    start = time.monotonic()
    with deadline_scope(time.monotonic() + 0.4), pytest.raises(ProviderError, match="did not answer in time"):
        HttpReranker(rerank_server.url, timeout_s=30.0, retry=HttpRetry(5, 0.01, 0.02)).rerank("wormhole", DOCS)
    assert time.monotonic() - start < 0.9
    rerank_server.delay_s = 0.0


def test_an_oversized_answer_is_refused_without_reading_it_all(rerank_server: RerankServer) -> None:
    big = json.dumps({"results": [{"index": 0, "relevance_score": 1.0}], "padding": "x" * 3_000_000}).encode()
    rerank_server.script = lambda n: (200, big)
    with pytest.raises(ProviderError, match="answer over 1 MiB") as err:
        HttpReranker(rerank_server.url, retry=FAST, max_response_bytes=1 << 20).rerank("wormhole", DOCS)
    assert len(rerank_server.requests) == 1 and err.value.code == "provider_unavailable"


@pytest.mark.parametrize("score", [b"NaN", b"Infinity", b"-Infinity"])
def test_scores_that_are_not_numbers_are_refused(rerank_server: RerankServer, score: bytes) -> None:
    rerank_server.script = lambda n: (200, b'{"results": [{"index": 0, "relevance_score": ' + score + b"}]}")
    with pytest.raises(ProviderError, match="not a ranking"):
        HttpReranker(rerank_server.url, retry=FAST).rerank("wormhole", DOCS)
