"""The OpenAI-compatible face, through the official ``openai`` client against a live server:
plain and streamed answers, a conversation continued (sent by the client, or stored under a
thread), scopes (a forbidden collection, the models a key may list) and OpenAI-shaped errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai import OpenAI

from selfrag.service import KeyFile
from tests.service.conftest import MOVIES, PLOTS, Live


@pytest.fixture
def live(shared_live: Live) -> Live:
    """One server for this module: its tests read the seeded movies or write under names of their
    own (a test that counts the server's metrics asks ``make_live`` for a server of its own)."""
    return shared_live

ASK = [{"role": "user", "content": "Which movie has dinosaurs?"}]
README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


_OPEN: list[OpenAI] = []


def client(live: Live, key: str = "no-keys-configured") -> OpenAI:
    made = OpenAI(base_url=f"{live.url}/v1", api_key=key, max_retries=0, timeout=60)
    _OPEN.append(made)
    return made


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def test_a_plain_answer_with_its_citations_outcome_and_trace_id(live: Live) -> None:
    raw = client(live).chat.completions.with_raw_response.create(model="movies", messages=ASK)  # type: ignore[arg-type]
    reply = raw.parse()
    assert reply.object == "chat.completion" and reply.model == "movies"
    (choice,) = reply.choices
    assert choice.message.role == "assistant" and choice.finish_reason == "stop"
    assert "dinosaurs" in (choice.message.content or "")
    extra = reply.model_extra["selfrag"]  # type: ignore[index]
    assert extra["outcome"] == "answered"
    assert [c["id"] for c in extra["citations"]] == ["dino"]
    assert extra["collection"] == "movies" and extra["thread_id"] is None
    assert extra["trace_id"] == raw.headers["x-request-id"]
    assert reply.usage is not None and reply.usage.total_tokens > 0


def test_a_streamed_answer_ends_with_the_extra_field_and_done(live: Live) -> None:
    chunks = list(client(live).chat.completions.create(model="movies", messages=ASK, stream=True))  # type: ignore[arg-type]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "dinosaurs" in text
    assert chunks[0].choices[0].delta.role == "assistant"
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["selfrag"]["outcome"] == "answered"  # type: ignore[index]
    assert last.usage is not None and last.usage.total_tokens > 0
    assert all(c.id == chunks[0].id for c in chunks)
    # On the wire: data lines only (progress as comments), the last one [DONE].
    with live.client() as http:
        body = http.post("/v1/chat/completions", json={"model": "movies", "messages": ASK, "stream": True}).text
    data = [line[6:] for line in body.splitlines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    assert all(json.loads(d)["object"] == "chat.completion.chunk" for d in data[:-1])
    assert re.search(r"^: node retrieve", body, re.MULTILINE)


def test_earlier_messages_are_the_conversation(live: Live) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Which movie has dinosaurs?"},
        {"role": "assistant", "content": "Scientists bring back dinosaurs [1]"},
        {"role": "user", "content": [{"type": "text", "text": "What did I just ask you?"}]},
    ]
    reply = client(live).chat.completions.create(model="movies", messages=messages)  # type: ignore[arg-type]
    # Answered from the conversation the client sent (quoted, no retrieval); nothing was stored.
    assert reply.choices[0].message.content == "You asked: “Which movie has dinosaurs?”."
    assert reply.model_extra["selfrag"]["outcome"] == "answered"  # type: ignore[index]


def test_a_stored_thread_is_continued_with_thread_id(live: Live) -> None:
    chat = client(live)
    first = chat.chat.completions.create(model="movies", messages=ASK, extra_body={"thread_id": "chat-1"})  # type: ignore[arg-type]
    assert first.model_extra["selfrag"]["thread_id"] == "chat-1"  # type: ignore[index]
    follow = chat.chat.completions.create(
        model="movies", messages=[{"role": "user", "content": "What did I just ask you?"}], extra_body={"thread_id": "chat-1"}
    )
    assert follow.choices[0].message.content == "You asked: “Which movie has dinosaurs?”."
    with live.client() as http:
        turns = http.get("/v1/threads/chat-1").json()["turns"]
    assert [t["question"] for t in turns] == ["Which movie has dinosaurs?", "What did I just ask you?"]


@pytest.fixture
def scoped(make_live: Callable[..., Live]) -> tuple[Live, str, str]:
    keys, reader = KeyFile().add(key_id="reader", tenant="acme", read=["movies"], write=[])
    keys, admin = keys.add(key_id="admin", tenant="acme", read=[], write=["*"])
    live = make_live(keys=keys)
    live.store.create_collection("secret", MOVIES).add(PLOTS[:1])
    return live, reader, admin


def test_a_forbidden_collection_is_403_in_openai_shape(scoped: tuple[Live, str, str]) -> None:
    live, reader, _ = scoped
    with pytest.raises(openai.PermissionDeniedError) as info:
        client(live, reader).chat.completions.create(model="secret", messages=ASK)  # type: ignore[arg-type]
    assert info.value.status_code == 403
    assert info.value.code == "forbidden"
    assert info.value.body == {"message": "this API key may not read collection 'secret'", "type": "permission_error",
                               "param": None, "code": "forbidden", "request_id": info.value.response.headers["x-request-id"]}
    # The same 403 for a name that does not exist: no existence oracle.
    with pytest.raises(openai.PermissionDeniedError):
        client(live, reader).chat.completions.create(model="nowhere", messages=ASK)  # type: ignore[arg-type]
    with pytest.raises(openai.PermissionDeniedError):  # one forbidden name among several
        client(live, reader).chat.completions.create(model="movies+secret", messages=ASK)  # type: ignore[arg-type]
    with pytest.raises(openai.AuthenticationError) as unauth:
        client(live, "srk_wrong").chat.completions.create(model="movies", messages=ASK)  # type: ignore[arg-type]
    assert unauth.value.code == "unauthenticated"
    assert client(live, reader).chat.completions.create(model="movies", messages=ASK).choices[0].message.content  # type: ignore[arg-type]


def test_models_are_the_collections_the_key_may_read(scoped: tuple[Live, str, str]) -> None:
    live, reader, admin = scoped
    assert [m.id for m in client(live, reader).models.list()] == ["movies"]
    models = client(live, admin).models.list()
    assert [m.id for m in models] == ["movies", "secret"]
    assert {m.owned_by for m in models} == {"selfrag"}


def test_a_model_naming_two_collections_searches_both(scoped: tuple[Live, str, str]) -> None:
    live, _, admin = scoped
    reply = client(live, admin).chat.completions.create(model="movies+secret", messages=ASK)  # type: ignore[arg-type]
    extra = reply.model_extra["selfrag"]  # type: ignore[index]
    assert extra["collections"] == ["movies", "secret"]
    assert extra["outcome"] == "answered"
    assert {c["resource"] for c in extra["citations"]} <= {"movies", "secret"} and extra["citations"]


def test_errors_name_our_codes(scoped: tuple[Live, str, str]) -> None:
    live, _, admin = scoped
    chat = client(live, admin).chat.completions
    with pytest.raises(openai.NotFoundError) as missing:
        chat.create(model="nowhere", messages=ASK)  # type: ignore[arg-type]
    assert missing.value.code == "collection_not_found"
    with pytest.raises(openai.BadRequestError) as last_not_user:
        chat.create(model="movies", messages=[*ASK, {"role": "assistant", "content": "Hi"}])  # type: ignore[arg-type]
    assert last_not_user.value.code == "question_invalid"
    with pytest.raises(openai.BadRequestError) as invalid:
        chat.create(model="movies", messages=[])
    assert invalid.value.code == "invalid_request"
    assert invalid.value.body["type"] == "invalid_request_error"  # type: ignore[index]


def test_an_error_before_a_stream_is_plain_json(live: Live) -> None:
    with live.client() as http:
        reply = http.post("/v1/chat/completions", json={"model": "nowhere", "messages": ASK, "stream": True})
    assert reply.status_code == 404
    assert reply.json() == {"error": {"message": "collection 'nowhere' does not exist (create it with POST /v1/collections)",
                                      "type": "not_found_error", "param": None, "code": "collection_not_found",
                                      "request_id": reply.headers["x-request-id"]}}


def test_the_readme_openai_example_runs(live: Live, capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", README, re.DOTALL) if "from openai import OpenAI" in b]
    code = block.replace("http://127.0.0.1:8000/v1", f"{live.url}/v1")
    assert code != block
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    namespace["client"].close()
    out = capsys.readouterr().out
    assert "dinosaurs" in out and out.strip().endswith("answered")


def test_request_is_checked_like_an_answer(live: Live) -> None:
    with live.client() as http:
        long = http.post("/v1/chat/completions", json={"model": "movies", "messages": [{"role": "user", "content": "x" * 4001}]})
        assert long.status_code == 400 and long.json()["error"]["code"] == "question_invalid"
        marks = http.post("/v1/chat/completions", json={"model": "movies", "messages": [{"role": "user", "content": "?!"}]})
        assert marks.status_code == 400 and marks.json()["error"]["code"] == "question_invalid"
        image = http.post("/v1/chat/completions", json={"model": "movies", "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x"}}]}]})
        assert image.status_code == 400 and image.json()["error"]["code"] == "invalid_request"
        two = http.post("/v1/chat/completions", json={"model": "movies", "messages": ASK, "n": 2})
        assert two.status_code == 400
