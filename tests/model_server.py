"""An OpenAI-compatible model server for tests and benches: ``/v1/chat/completions``,
``/v1/embeddings`` and ``/v1/models`` on 127.0.0.1, answering any selfrag prompt deterministically.

Run as a process (``python -m tests.model_server --port N``) so a bench can SIGKILL it and start it
again, as it would a real model server; or in-process with ``ModelServer``.

Chat replies follow ``tests.service.fake_server``'s lexical rules, picked from what an HTTP server
can see: a JSON-schema response format names the grader or the self-query schema; otherwise the
prompt's tags tell generation (numbered documents), condensing (a history) and rewriting apart.
Embeddings are ``selfrag.testing.HashEmbeddings`` (texts sharing words are close).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from selfrag.testing import HashEmbeddings

__all__ = ["ModelServer", "reply_for"]

_EMBED = HashEmbeddings()


def _messages(body: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, list):  # content parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        out.append((SystemMessage if m.get("role") == "system" else HumanMessage)(content=str(content or "")))
    return out


def reply_for(body: dict[str, Any]) -> str:
    """The assistant's text for a chat completion request ``body``."""
    from tests.service.fake_server import lexical_rules

    rules = lexical_rules()
    messages = _messages(body)
    prompt = str(messages[-1].content) if messages else ""
    fmt = body.get("response_format") or {}
    name = str((fmt.get("json_schema") or {}).get("name") or "") if isinstance(fmt, dict) else ""
    if name in rules:
        rule = rules[name]
        return str(rule(messages) if callable(rule) else rule)
    if name:  # the self-query (or any other schema): search with the question, no filter
        question = prompt.split("<question>", 1)[-1].split("</question>", 1)[0].strip() or prompt[-300:]
        return json.dumps({"query": question, "filter": None, "limit": None})
    task = "generate" if '<document number="' in prompt else "condense" if "<history>" in prompt else "rewrite"
    return str(rules[task](messages))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model", "created": 0, "owned_by": "tests"}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if self.path.endswith("/embeddings"):
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else list(texts or [])
            data = [{"object": "embedding", "index": i, "embedding": _EMBED.embed_query(str(t))} for i, t in enumerate(texts)]
            self._send(200, {"object": "list", "data": data, "model": body.get("model", "scripted"),
                             "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}})
            return
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        text = reply_for(body)
        self._send(200, {
            "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        })


class ModelServer:
    """The server in a background thread (``url`` ends in ``/v1``); ``stop`` closes its socket."""

    def __init__(self, port: int = 0) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), _Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
