"""Translate LangChain's vocabulary into llama-cpp-python's OpenAI-like dicts.

Kept apart from ``local_chat`` so the mapping is tested without loading a model: the roles,
the content blocks we accept, and how an OpenAI ``json_schema`` response format becomes
llama-cpp's ``json_object`` + ``schema`` (which it compiles into a grammar that constrains
sampling token by token, so a tiny model cannot wander out of the schema).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic import BaseModel

__all__ = ["ChatDict", "message_text", "to_chat_messages", "translate_response_format"]


class ChatDict(TypedDict):
    """One message as llama-cpp's ``create_chat_completion`` takes it."""

    role: str
    content: str


def message_text(message: BaseMessage) -> str:
    """The text of a message; content blocks other than text are refused rather than silently dropped.

    Raises:
        ValueError: a non-text block (image, audio...) that a text-only local model cannot see.
    """
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            kind = block.get("type", "?") if isinstance(block, Mapping) else type(block).__name__
            raise ValueError(f"the local model takes text only, got a {kind!r} content block")
    return "".join(parts)


def _role(message: BaseMessage) -> str:
    if isinstance(message, SystemMessage):
        return "system"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, ChatMessage):
        return message.role
    raise ValueError(f"unsupported message type {type(message).__name__}")


def to_chat_messages(messages: Sequence[BaseMessage]) -> list[ChatDict]:
    """Map LangChain messages to ``{"role", "content"}`` dicts in the same order."""
    return [ChatDict(role=_role(m), content=message_text(m)) for m in messages]


def translate_response_format(fmt: Any) -> dict[str, Any] | None:
    """OpenAI-style ``response_format`` → llama-cpp's, or None for free text.

    Accepted: ``{"type": "json_schema", "json_schema": {"schema": ...}}`` (what
    ``with_structured_output`` binds), ``{"type": "json_object"}`` with or without ``schema``,
    ``{"type": "text"}``, and a pydantic model class (as ``ChatOpenAI`` also accepts).

    Raises:
        ValueError: any other type of format, so a typo does not silently turn into free text.
        TypeError: neither a mapping nor a pydantic class.
    """
    if fmt is None:
        return None
    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        return {"type": "json_object", "schema": fmt.model_json_schema()}
    if not isinstance(fmt, Mapping):
        raise TypeError(f"unsupported response_format {fmt!r}")
    kind = fmt.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        out: dict[str, Any] = {"type": "json_object"}
        if fmt.get("schema") is not None:
            out["schema"] = fmt["schema"]
        return out
    if kind == "json_schema":
        spec = fmt.get("json_schema")
        if not isinstance(spec, Mapping) or not isinstance(spec.get("schema"), Mapping):
            raise ValueError("response_format json_schema needs a 'json_schema' object with a 'schema'")
        return {"type": "json_object", "schema": dict(spec["schema"])}
    raise ValueError(f"unsupported response_format type {kind!r}")
