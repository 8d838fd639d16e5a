"""What real OpenAI clients send, through the official ``openai`` client against a live server:
Open WebUI's and LibreChat's requests (streamed with ``stream_options``, a system prompt, ``user``,
sampling knobs) are answered; parameters that would change the answer's meaning are refused with
an OpenAI-shaped 400 naming the parameter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai import OpenAI

from selfrag.service.chat import IGNORED_PARAMETERS
from tests.service.conftest import Live

QUESTION = "Which movie has dinosaurs?"


@pytest.fixture
def chat(live: Live) -> Iterator[OpenAI]:
    client = OpenAI(base_url=f"{live.url}/v1", api_key="no-keys-configured", max_retries=0, timeout=60)
    yield client
    client.close()


OPEN_WEBUI: dict[str, Any] = {
    "stream": True, "stream_options": {"include_usage": True}, "user": "alice@example.org",
    "messages": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": QUESTION}],
    "temperature": 0.8, "top_p": 0.9, "max_tokens": 512, "seed": 7, "metadata": {"chat_id": "c1"},
}
LIBRECHAT: dict[str, Any] = {
    "stream": True, "stream_options": {"include_usage": True}, "user": "65f0c2",
    "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}],
    "temperature": 1, "top_p": 1, "presence_penalty": 0, "frequency_penalty": 0, "max_completion_tokens": 1024,
}
EVERYTHING_IGNORED: dict[str, Any] = {
    "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}],
    "tool_choice": "auto", "parallel_tool_calls": True, "response_format": {"type": "text"}, "logprobs": True,
    "top_logprobs": 2, "logit_bias": {"50256": -100}, "reasoning_effort": "low", "store": False, "service_tier": "auto",
    "modalities": ["text"], "stop": ["\n\n"], "n": 1, "prediction": {"type": "content", "content": "x"},
    "verbosity": "low", "prompt_cache_key": "k", "safety_identifier": "s",
}


@pytest.mark.parametrize("sent", [OPEN_WEBUI, LIBRECHAT], ids=["open-webui", "librechat"])
def test_chat_ui_requests_stream_the_answer(chat: OpenAI, sent: dict[str, Any]) -> None:
    chunks = list(chat.chat.completions.create(model="movies", **sent))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "dinosaurs" in content
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1  # tokens, not one block
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["selfrag"]["outcome"] == "answered"  # type: ignore[index]


def test_every_other_openai_parameter_is_accepted_and_ignored(chat: OpenAI) -> None:
    reply = chat.chat.completions.create(model="movies", messages=[{"role": "user", "content": QUESTION}],
                                         extra_body={"a_field_from_next_year": {"x": 1}}, **EVERYTHING_IGNORED)
    assert "dinosaurs" in (reply.choices[0].message.content or "")
    assert reply.choices[0].logprobs is None
    assert set(EVERYTHING_IGNORED) - {"n"} <= set(IGNORED_PARAMETERS)


@pytest.mark.parametrize(("param", "value"), [
    ("n", 2),
    ("tool_choice", "required"),
    ("tool_choice", {"type": "function", "function": {"name": "lookup"}}),
    ("response_format", {"type": "json_object"}),
    ("response_format", {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}}}),
    ("modalities", ["text", "audio"]),
])
def test_what_would_change_the_meaning_is_refused_in_openai_shape(chat: OpenAI, param: str, value: Any) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        chat.chat.completions.create(model="movies", messages=[{"role": "user", "content": QUESTION}],
                                     **{param: value})
    error = info.value.body
    assert isinstance(error, dict)
    assert error == {**error, "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}
    assert param in error["message"]
