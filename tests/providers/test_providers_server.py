"""ChatOpenAI against llama-cpp-python's OpenAI-compatible server, running the bundled SmolLM2.

This is the "any OpenAI-compatible server" path with a real server. Found empirically:
the server rejects ``response_format`` of type ``json_schema`` (HTTP 500 wrapping a validation
error: only ``text`` / ``json_object``), so ``function_calling`` is the method to configure; it
ignores ``max_completion_tokens`` (hence the factory's ``extra_body`` ``max_tokens``).
"""

from __future__ import annotations

from typing import Literal

import openai
import pytest
from pydantic import BaseModel

from selfrag.providers import make_chat_model
from selfrag.settings import LLMSettings

pytestmark = pytest.mark.integration


class Verdict(BaseModel):
    verdict: Literal["yes", "no"]
    reason: str


def _settings(base_url: str, max_tokens: int = 96) -> LLMSettings:
    return LLMSettings(
        provider="openai", model="smollm2", base_url=base_url, max_tokens=max_tokens,
        structured_output_method="function_calling", timeout_s=60,
    )  # fmt: skip


def test_function_calling_gives_a_schema_valid_object(llama_server: str) -> None:
    model = make_chat_model(_settings(llama_server))
    result = model.with_structured_output(Verdict, method="function_calling").invoke(
        "Question: what do cats eat? Document: Cats eat fish. Is the document relevant?"
    )
    assert isinstance(result, Verdict)


def test_plain_invoke_respects_max_tokens(llama_server: str) -> None:
    reply = make_chat_model(_settings(llama_server, max_tokens=8)).invoke("Tell me a long story about a cat.")
    assert isinstance(reply.content, str) and reply.content
    assert reply.usage_metadata is not None and reply.usage_metadata["output_tokens"] <= 8


def test_json_schema_is_rejected_by_this_server(llama_server: str) -> None:
    model = make_chat_model(_settings(llama_server))
    with pytest.raises(openai.APIError, match="json_object"):
        model.with_structured_output(Verdict, method="json_schema").invoke("Is the sky blue?")
