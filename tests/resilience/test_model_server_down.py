"""A real OpenAI-compatible server on 127.0.0.1, killed under the client: after a few failed
attempts the endpoint's breaker refuses calls at once (no connection, no retry), and once the
server is back a probe closes it again within seconds."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from selfrag.breaker import BreakerOpen, BreakerState, breaker_for, reset_breakers
from selfrag.outages import is_outage
from selfrag.providers import make_chat_model
from selfrag.retry import RetryPolicy, call_with_retries
from selfrag.settings import LLMSettings
from tests.servers import free_port

FAST = RetryPolicy(attempts=3, initial_wait_s=0.0, max_wait_s=0.0)


class ChatServer:
    """A minimal /v1/chat/completions that always says "ok"; ``stop`` closes its socket."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.requests = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                outer.requests += 1
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.dumps({
                    "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@pytest.fixture
def port() -> Iterator[int]:
    reset_breakers()
    yield free_port()
    reset_breakers()


def test_a_killed_model_server_fails_fast_then_recovers(port: int) -> None:
    server = ChatServer(port)
    url = f"http://127.0.0.1:{port}/v1"
    model = make_chat_model(LLMSettings(provider="openai", base_url=url, model="m", timeout_s=5))
    ask = [HumanMessage("hi")]
    assert model.invoke(ask).content == "ok"
    server.stop()

    # Three attempts meet a refused connection; the breaker opens.
    with pytest.raises(Exception) as first:
        call_with_retries(lambda: model.invoke(ask), FAST)
    assert is_outage(first.value)
    breaker = breaker_for(f"model {url}")
    assert breaker.state is BreakerState.OPEN

    # Refused at once, without a retry: the chain names the breaker.
    start = time.monotonic()
    with pytest.raises(Exception) as refused:
        call_with_retries(lambda: model.invoke(ask), RetryPolicy(attempts=3, initial_wait_s=1.0, max_wait_s=1.0))
    assert time.monotonic() - start < 0.5
    chain, link = [], refused.value
    while link is not None:
        chain.append(link)
        link = link.__cause__ or link.__context__
    assert any(isinstance(x, BreakerOpen) for x in chain)

    # The server comes back: within the breaker's pause (2 s) a probe gets through and closes it.
    server = ChatServer(port)
    try:
        deadline = time.monotonic() + 5.0
        while True:
            try:
                assert model.invoke(ask).content == "ok"
                break
            except Exception:
                assert time.monotonic() < deadline, "not recovered within 5 s"
                time.sleep(0.1)
        assert breaker.state is BreakerState.CLOSED
    finally:
        server.stop()
