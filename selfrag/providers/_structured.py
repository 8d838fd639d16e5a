"""Structured output for chat models that speak JSON but not OpenAI tool calling.

The embedded llama.cpp model and the scripted test models both implement
``with_structured_output`` the same way: ask for JSON matching the schema (llama.cpp turns the
schema into a grammar, so the output is constrained token by token), then parse it with pydantic.
A parse failure raises ``OutputParserException``, which the graders' tenacity policy retries.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ValidationError

__all__ = ["JsonSchemaStructuredOutput", "parse_structured"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_structured(message: BaseMessage | str, schema: type[BaseModel]) -> BaseModel:
    """Parse a model's JSON reply into ``schema``; tolerate code fences and leading chatter."""
    text = message if isinstance(message, str) else str(message.content)
    candidate = text.strip()
    fenced = _FENCE.search(candidate)
    if fenced:
        candidate = fenced.group(1).strip()
    if not candidate.startswith("{"):
        start, end = candidate.find("{"), candidate.rfind("}")
        if start != -1 and end > start:
            candidate = candidate[start : end + 1]
    try:
        data: Any = json.loads(candidate)
    except json.JSONDecodeError as exc:
        raise OutputParserException(f"{schema.__name__}: reply is not JSON: {exc.msg}", llm_output=text) from exc
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise OutputParserException(
            f"{schema.__name__}: reply does not match the schema: {exc.errors()[0]['msg']}", llm_output=text
        ) from exc


class JsonSchemaStructuredOutput:
    """Mixin for ``BaseChatModel`` subclasses: ``with_structured_output`` via a JSON-schema response format."""

    def with_structured_output(
        self, schema: type[BaseModel], *, method: str = "json_schema", include_raw: bool = False, **kwargs: Any
    ) -> Runnable[Any, Any]:
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise TypeError("structured output here takes a pydantic model class")
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": True},
        }
        bound = self.bind(response_format=response_format)  # type: ignore[attr-defined]

        def _parse(msg: AIMessage) -> Any:
            parsed = parse_structured(msg, schema)
            return {"raw": msg, "parsed": parsed, "parsing_error": None} if include_raw else parsed

        chain: Runnable[Any, Any] = bound | RunnableLambda(_parse)
        return chain
