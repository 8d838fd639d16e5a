"""LangChain messages and response formats → llama-cpp's dicts (pure functions, no model)."""

from __future__ import annotations

from typing import Literal

import pytest
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel

from selfrag.providers._messages import message_text, to_chat_messages, translate_response_format


class Verdict(BaseModel):
    verdict: Literal["yes", "no"]
    reason: str


def test_roles_and_order_are_kept() -> None:
    msgs = [
        SystemMessage("be brief"),
        HumanMessage("hi"),
        AIMessage("hello"),
        ToolMessage("42", tool_call_id="t1"),
        ChatMessage(role="critic", content="meh"),
    ]
    assert to_chat_messages(msgs) == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "tool", "content": "42"},
        {"role": "critic", "content": "meh"},
    ]


def test_text_blocks_are_joined() -> None:
    msg = HumanMessage(content=[{"type": "text", "text": "a "}, "b"])
    assert message_text(msg) == "a b"


def test_non_text_blocks_are_refused() -> None:
    msg = HumanMessage(content=[{"type": "image_url", "image_url": {"url": "data:,"}}])
    with pytest.raises(ValueError, match="text only"):
        message_text(msg)


def test_json_schema_becomes_json_object_with_schema() -> None:
    schema = Verdict.model_json_schema()
    fmt = {"type": "json_schema", "json_schema": {"name": "Verdict", "schema": schema, "strict": True}}
    assert translate_response_format(fmt) == {"type": "json_object", "schema": schema}


def test_pydantic_class_is_accepted() -> None:
    assert translate_response_format(Verdict) == {"type": "json_object", "schema": Verdict.model_json_schema()}


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        (None, None),
        ({"type": "text"}, None),
        ({"type": "json_object"}, {"type": "json_object"}),
        ({"type": "json_object", "schema": {"type": "object"}}, {"type": "json_object", "schema": {"type": "object"}}),
    ],
)
def test_other_formats(fmt: object, expected: object) -> None:
    assert translate_response_format(fmt) == expected


@pytest.mark.parametrize("fmt", [{"type": "xml"}, {"type": "json_schema"}, {"type": "json_schema", "json_schema": {}}])
def test_unknown_formats_are_refused(fmt: object) -> None:
    with pytest.raises(ValueError):
        translate_response_format(fmt)


def test_a_format_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(TypeError):
        translate_response_format("json")
