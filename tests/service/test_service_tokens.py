"""The answer's tokens over both streaming faces, and what a client sees when a check rejects them.

The scripted model streams its answers a word at a time. In the rejected case the groundedness
check turns down the model's streamed answer, and the trained reader's answer (scripted here)
replaces it on the last allowed generation: ``/v1/answers/stream`` ends with an ``answer`` event
that says ``replaced`` and carries the answer to show; the chat stream, which can only append,
adds a notice and the checked answer, and says ``replaced`` in its ``selfrag`` extension.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from selfrag.service import create_app
from selfrag.service.routes.chat import WITHDRAWN_REPLACED
from selfrag.settings import Settings
from selfrag.testing import ScriptedChatModel, ScriptedJudge, verdict
from tests.service.conftest import MOVIES, PLOTS, ThreadedServer
from tests.service.fake_server import lexical_reading, lexical_rules, scripted_store
from workflows import Components, SelfRagEngine

STREAMED = "Dinosaurs are cloned on an island theme park. [1]"
READER = "Scientists bring back dinosaurs and mayhem breaks loose on the island. [1]"


def _serve(tmp_path: Path, rules: dict[str, Any]) -> Iterator[str]:
    settings = Settings(home=tmp_path / "home")
    store = scripted_store(settings)
    store.create_collection("movies", MOVIES).add(PLOTS)
    model = ScriptedChatModel.from_rules({**lexical_rules(), **rules})
    components = Components.from_model(model, store, self_query_mode="rules", parallel_checks=False,
                                       judge=ScriptedJudge(read=lexical_reading))
    app = create_app(settings, engine=SelfRagEngine(components), store=store)
    try:
        with ThreadedServer(app) as server:
            yield f"http://127.0.0.1:{server.port}"
    finally:
        store.close()


@pytest.fixture
def rejecting(tmp_path: Path) -> Iterator[str]:
    """The model's answer is ungrounded; the reader's, on the second generation, is grounded."""
    yield from _serve(tmp_path, {"generate": STREAMED,
                                 "GroundednessGrade": [verdict("ungrounded", "not in the plot"), verdict("grounded")]})


@pytest.fixture
def accepting(tmp_path: Path) -> Iterator[str]:
    yield from _serve(tmp_path, {})


ASK = {"question": "Which movie has dinosaurs?", "collection": "movies"}


def _events(url: str) -> list[tuple[str, dict[str, Any]]]:
    with httpx.Client(base_url=url, timeout=30) as http, connect_sse(http, "POST", "/v1/answers/stream", json=ASK) as s:
        return [(e.event, json.loads(e.data)) for e in s.iter_sse()]


def test_an_accepted_answer_streams_as_deltas_then_the_answer_event(accepting: str) -> None:
    got = _events(accepting)
    names = [n for n, _ in got]
    deltas = [d for n, d in got if n == "answer_delta"]
    assert len(deltas) > 3  # a word at a time, before the answer is checked ...
    assert names.index("answer_delta") < names.index("generate") < names.index("check")
    assert {(d["generation"], d["attempt"]) for d in deltas} == {(1, 1)}
    final = dict(got)["answer"]
    text = "".join(d["delta"] for d in deltas)
    assert final == {"answer": text, "outcome": "answered", "replaced": False}  # ... and it is the answer
    assert names[-2:] == ["answer", "result"] and dict(got)["result"]["answer"] == text


def test_a_rejected_stream_ends_with_the_replacement_answer(rejecting: str) -> None:
    got = _events(rejecting)
    streamed = "".join(d["delta"] for n, d in got if n == "answer_delta" and d["generation"] == 1)
    assert streamed == STREAMED
    check = next(d for n, d in got if n == "check")
    assert check["grounded"] is False
    # the reader's answer writes no tokens: it comes in the final event, which replaces the stream
    final = dict(got)["answer"]
    assert final == {"answer": READER, "outcome": "answered", "replaced": True}
    assert [n for n, _ in got][-2:] == ["answer", "result"] and dict(got)["result"]["answer"] == READER


def _chat(url: str) -> tuple[str, dict[str, Any]]:
    body = {"model": "movies", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": ASK["question"]}]}
    content, last = "", {}
    with httpx.Client(base_url=url, timeout=30) as http, connect_sse(http, "POST", "/v1/chat/completions", json=body) as s:
        for e in s.iter_sse():
            if e.data == "[DONE]":
                break
            chunk = json.loads(e.data)
            content += chunk["choices"][0]["delta"].get("content") or ""
            last = chunk
    return content, last


def test_chat_streams_tokens_as_content_chunks(accepting: str) -> None:
    content, last = _chat(accepting)
    assert last["selfrag"]["replaced"] is False and last["selfrag"]["answer"] == content
    assert last["usage"]["total_tokens"] > 0


def test_a_rejected_chat_stream_appends_a_notice_and_the_checked_answer(rejecting: str) -> None:
    content, last = _chat(rejecting)
    assert content == STREAMED + WITHDRAWN_REPLACED + READER
    assert last["selfrag"] == {**last["selfrag"], "answer": READER, "replaced": True, "outcome": "answered"}
