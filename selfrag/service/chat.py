"""The OpenAI-compatible face: chat-completion bodies, and how a chat maps onto the engine.

Any OpenAI client or chat UI can talk to the engine (``POST /v1/chat/completions``,
``GET /v1/models``):

- ``model`` names the collection to answer from (``GET /v1/models`` lists those the key may read);
  several are written ``a+b``.
- The last message must be the user's: it is the question. System and developer messages are
  ignored (the engine's own prompts decide how it answers), as are the sampling parameters
  (``temperature``, ``max_tokens``…) and the other OpenAI parameters in ``IGNORED_PARAMETERS``:
  the answer comes from the corrective workflow, not one sampling. What would change the answer's
  meaning and cannot be honoured is refused (``check_supported``: 400 ``unsupported_parameter``,
  OpenAI's ``param`` naming it).
- Earlier user/assistant messages are the conversation: each user message and the assistant
  reply after it become one turn of the run's history, used to make a follow-up standalone.
  Nothing is stored: the client sends the whole conversation each time, as OpenAI's API expects.
- ``thread_id`` (an extension field: ``extra_body={"thread_id": ...}`` with the ``openai``
  client) uses the server's stored thread instead, as ``POST /v1/answers`` does: the thread's own
  turns are the history (the request's earlier messages are then ignored) and this turn is stored.
  The OpenAI ``user`` field names an end user, not a conversation, so it is not mapped to a thread.
- The answer is the message content; its citations, outcome, collection, thread and trace id
  (the request id, which the server's log lines name) travel in the extension field ``selfrag``,
  on the response and on the last chunk of a stream.
- Errors have OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``, with this
  API's stable ``code``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from selfrag.errors import InvalidQuestion, UnsupportedParameter
from selfrag.service.models import COLLECTION_PATTERN, THREAD_PATTERN, CitationOut
from workflows import Turn

__all__ = [
    "CLIENT_TURN_OUTCOME",
    "IGNORED_PARAMETERS",
    "MODEL_PATTERN",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatMessage",
    "ChatRequest",
    "ModelCard",
    "ModelList",
    "OpenAIErrorResponse",
    "SelfragExtra",
    "check_supported",
    "collections_of",
    "completion_id",
    "conversation",
    "error_type",
]

_NAME = COLLECTION_PATTERN.removeprefix("^").removesuffix("$")
MODEL_PATTERN = rf"^{_NAME}(?:\+{_NAME}){{0,7}}$"
"""A collection name, or up to eight joined by ``+``."""
CLIENT_TURN_OUTCOME = "unknown"
"""The outcome of a turn rebuilt from a client's transcript: the transcript does not say."""


class TextPart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["text"]
    text: str = Field(max_length=100_000)


class ChatMessage(BaseModel):
    """One message of the conversation. Fields other clients add (``name``, ``tool_calls``…) are
    accepted and ignored: only the role and the text matter here."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[TextPart] | None = Field(None, description="Text, or a list of text parts (no images).")

    def text(self) -> str:
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text for p in self.content)


IGNORED_PARAMETERS = (
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "presence_penalty", "frequency_penalty",
    "seed", "logit_bias", "logprobs", "top_logprobs", "user", "metadata", "store", "service_tier", "reasoning_effort",
    "verbosity", "parallel_tool_calls", "tools", "tool_choice", "functions", "function_call", "response_format",
    "modalities", "prediction", "prompt_cache_key", "safety_identifier", "web_search_options", "stream_options",
)
"""OpenAI parameters accepted and ignored (when they leave the answer's meaning alone: see
``check_supported``). Sampling and length knobs do not apply (the answer comes from the corrective
workflow, not one sampling); tools are never called, as ``tool_choice: "auto"`` allows; ``logprobs``
come back ``null``; usage is always on a stream's last chunk. Unknown fields are ignored too:
clients add new ones faster than any list."""


class ChatRequest(BaseModel):
    """OpenAI's chat-completion request: the fields used, and every other OpenAI parameter accepted
    and ignored (``IGNORED_PARAMETERS``) unless it would change what the answer means (``check_supported``)."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(pattern=MODEL_PATTERN, max_length=600, description="The collection to answer from (a+b: several).")
    messages: list[ChatMessage] = Field(min_length=1, max_length=500, description="The conversation; the last is the user's question.")
    stream: bool | None = Field(False, description="Answer as Server-Sent Events in OpenAI's chunk format, ending with data: [DONE].")
    thread_id: str | None = Field(
        None, pattern=THREAD_PATTERN,
        description="Extension: continue the server's stored thread (its turns are the history; this turn is stored).",
    )
    n: int | None = Field(None, description="One answer per question: only 1.")
    tool_choice: Any = Field(None, description="Tools are never called: `none` or `auto` only.")
    function_call: Any = Field(None, description="Legacy tool choice: `none` or `auto` only.")
    response_format: Any = Field(None, description="The answer is prose with [n] citations: `text` only.")
    modalities: list[str] | None = Field(None, description="Text only.")
    audio: Any = Field(None, description="No audio output: null only.")
    stream_options: dict[str, Any] | None = Field(None, description="Accepted; usage is always sent on the last chunk.")
    user: str | None = Field(None, max_length=256, description="Accepted and ignored (it names an end user, not a thread).")
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    stop: str | list[str] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    seed: int | None = None
    logprobs: bool | None = Field(None, description="Accepted; logprobs come back null.")
    top_logprobs: int | None = None
    logit_bias: dict[str, float] | None = None
    metadata: dict[str, Any] | None = None
    store: bool | None = None
    service_tier: str | None = None
    reasoning_effort: str | None = None
    parallel_tool_calls: bool | None = None
    tools: list[Any] | None = Field(None, description="Accepted and never called (as tool_choice auto allows).")


def check_supported(body: ChatRequest) -> None:
    """Refuse what would change the answer's meaning and cannot be honoured.

    Raises:
        UnsupportedParameter: ``n`` > 1, a tool call required or named, a JSON response format,
            or a modality other than text.
    """
    if body.n is not None and body.n != 1:
        raise UnsupportedParameter("n: one answer per question; send n=1 or leave it out", param="n")
    for param, choice in (("tool_choice", body.tool_choice), ("function_call", body.function_call)):
        if choice is not None and choice not in ("none", "auto"):
            raise UnsupportedParameter(f"{param}: this API never calls tools; send 'auto' or 'none' or leave it out",
                                       param=param)
    kind = body.response_format.get("type") if isinstance(body.response_format, dict) else body.response_format
    if kind not in (None, "text"):
        raise UnsupportedParameter("response_format: answers are text with [n] citations; "
                                   "JSON output (json_object, json_schema) is not supported", param="response_format")
    if body.modalities is not None and set(body.modalities) - {"text"} or body.audio is not None:
        raise UnsupportedParameter("modalities: answers are text only", param="modalities")


class SelfragExtra(BaseModel):
    """What the answer rests on: the extension field ``selfrag``."""

    outcome: str = Field(description="answered | unverified | abstained | ungrounded | budget_exhausted | no_progress | needs_clarification")
    citations: list[CitationOut] = Field(default_factory=list, description="The documents behind the answer's [n] markers.")
    collection: str = Field(description="The first collection the model names.")
    collections: list[str] = Field(default_factory=list, description="Every collection searched (a model `a+b` names two).")
    thread_id: str | None = None
    standalone_question: str
    trace_id: str = Field(description="This request's id (X-Request-ID): the server's log lines about it name it.")
    answer: str | None = Field(None, description="On a stream's last chunk: the answer to show (the checked one).")
    replaced: bool | None = Field(
        None, description="On a stream's last chunk: true when the streamed tokens were not the answer (a check "
        "rejected them); the content then ends with a notice and the checked answer.",
    )


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    selfrag: SelfragExtra


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int = 0
    delta: Delta
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


class ChatCompletionChunk(BaseModel):
    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None
    selfrag: SelfragExtra | None = Field(None, description="On the last chunk only.")


class OpenAIErrorBody(BaseModel):
    message: str
    type: str = Field(description="OpenAI's error type (invalid_request_error, permission_error, …).")
    param: str | None = None
    code: str = Field(description="This API's stable code (forbidden, collection_not_found, …).")
    request_id: str = Field(description="The X-Request-ID the server's log lines about this failure name.")
    dependency: str | None = Field(default=None, description="For a 503 of a dependency: which one.")


class OpenAIErrorResponse(BaseModel):
    error: OpenAIErrorBody


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = Field(description="When the server started (Unix seconds): see GET /v1/models.")
    owned_by: str = "selfrag"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


def completion_id() -> tuple[str, int]:
    """A fresh completion id and its creation time (Unix seconds)."""
    return f"chatcmpl-{uuid.uuid4().hex}", int(time.time())


def collections_of(model: str) -> list[str]:
    """The collections a ``model`` names, in order, each once."""
    return list(dict.fromkeys(model.split("+")))


def conversation(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """The question (the last message, the user's) and the turns before it.

    Each user message followed by an assistant message is a turn; a user message with no reply
    is a turn with an empty answer. Other roles carry nothing the engine uses.

    Raises:
        InvalidQuestion: the last message is not the user's, or has no text.
    """
    *earlier, last = messages
    if last.role != "user":
        raise InvalidQuestion(f"the last message must be the user's question, not a {last.role!r} message")
    if not last.text().strip():
        raise InvalidQuestion("the last user message is empty")
    turns: list[Turn] = []
    asked: str | None = None
    for message in earlier:
        if message.role == "user":
            if asked is not None:
                turns.append(_turn(asked, ""))
            asked = message.text()
        elif message.role == "assistant" and asked is not None:
            turns.append(_turn(asked, message.text()))
            asked = None
    if asked is not None:
        turns.append(_turn(asked, ""))
    return last.text(), turns


def _turn(question: str, answer: str) -> Turn:
    folded = " ".join(question.split())
    return Turn(question=folded, standalone_question=folded, answer=answer, outcome=CLIENT_TURN_OUTCOME)


def error_type(status: int) -> str:
    """OpenAI's error ``type`` for a status (clients branch on the status; this is for people)."""
    return {
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        409: "conflict_error",
        429: "rate_limit_error",
    }.get(status, "server_error" if status >= 500 else "invalid_request_error")
