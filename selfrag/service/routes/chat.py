"""``POST /v1/chat/completions`` and ``GET /v1/models``: the OpenAI-compatible face
(``selfrag.service.chat`` says how a chat maps onto the engine)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from selfrag.errors import SelfRagError
from selfrag.service.auth import Principal
from selfrag.service.chat import (
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChatRequest,
    Choice,
    ChunkChoice,
    Delta,
    ModelCard,
    ModelList,
    OpenAIErrorResponse,
    SelfragExtra,
    Usage,
    check_supported,
    collections_of,
    completion_id,
    conversation,
    error_type,
)
from selfrag.service.context import PreparedRun, Service
from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.models import AnswerRequest
from selfrag.service.problems import client_message, error_body, error_for, log_failure, status_for
from selfrag.service.request_id import current_request_id
from selfrag.service.routes._responses import errors
from selfrag.service.routes.answers import CLIENT_GONE, final_result
from workflows import MAX_QUESTION_CHARS, AnswerDelta, AnswerFinal, AnswerStream, NodeEvent, Result

__all__ = ["router"]

log = logging.getLogger("selfrag.service")


def openai_shaped(response: JSONResponse) -> JSONResponse:
    """Our ``{"error": {"code", "message"}}`` as OpenAI's ``{"error": {"message", "type", "param", "code"}}``."""
    error = json.loads(bytes(response.body))["error"]
    body = {"error": {"message": error["message"], "type": error_type(response.status_code), "param": error.pop("param", None),
                      **{k: v for k, v in error.items() if k != "message"}}}
    headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")}
    return JSONResponse(body, status_code=response.status_code, headers=headers)


class OpenAIErrorRoute(AuthenticatedRoute):
    """A route whose errors (auth, validation, the engine's) come in OpenAI's shape, same codes;
    authenticated first, as every route."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:
                response = error_for(request, exc)
                if response is None:
                    raise  # unexpected: the app's handler logs it and answers 500 internal
                return openai_shaped(response)

        return route


router = APIRouter(prefix="/v1", tags=["openai"], route_class=OpenAIErrorRoute)

WITHDRAWN_RETRYING = "\n\n[Withdrawn: the text above failed a check; writing the answer again.]\n\n"
"""Streamed (as content) when a new attempt starts writing after text was streamed."""
WITHDRAWN_REPLACED = "\n\n[Withdrawn: the text above failed a check. The checked answer:]\n\n"
"""Streamed (as content) before the final answer when it is not the text streamed."""

_CHUNK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {"data": {"type": "string", "description": "A ChatCompletionChunk as JSON, an error, or [DONE]."}},
}


def _prepare(service: Service, body: ChatRequest, principal: Principal, started: float) -> PreparedRun:
    check_supported(body)
    names = collections_of(body.model)
    for name in names:  # scopes first: a forbidden name is a 403 whether or not it exists
        principal.require_read(name)
    question, history = conversation(body.messages)
    service.engine.check_question(question)  # 400 question_invalid rather than a validation error
    several = len(names) > 1
    request = AnswerRequest(question=question[:MAX_QUESTION_CHARS], collection=None if several else names[0],
                            collections=names if several else None, thread_id=body.thread_id)
    prepared = service.prepare(request, principal, started=started)
    return dataclasses.replace(prepared, question=question, history=None if body.thread_id else history)


def _extra(result: Result, prepared: PreparedRun, *, streamed: AnswerFinal | None = None) -> SelfragExtra:
    """The ``selfrag`` extension; on a stream's last chunk, ``answer`` and ``replaced`` too."""
    return SelfragExtra.model_validate({
        "answer": streamed.answer if streamed is not None else None,
        "replaced": streamed.replaced if streamed is not None else None,
        "outcome": result.outcome.value,
        "citations": [c.model_dump(mode="json") for c in result.citations],
        "collection": result.collection,
        "collections": result.collections,
        "thread_id": prepared.thread_id,
        "standalone_question": result.standalone_question,
        "trace_id": current_request_id(),
    })


def _usage(result: Result) -> Usage:
    llm = result.trace.llm
    return Usage(prompt_tokens=llm.input_tokens, completion_tokens=llm.output_tokens, total_tokens=llm.total_tokens)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={
        200: {
            "description": "The answer (JSON), or with stream=true Server-Sent Events: OpenAI chunks, the last "
            "carrying finish_reason, usage and selfrag, then data: [DONE].",
            "content": {"text/event-stream": {"itemSchema": _CHUNK_SCHEMA}},
        },
        **errors(400, 401, 403, 404, 409, 413, 422, 429, 503, 504, model=OpenAIErrorResponse),
    },
)
async def chat_completions(
    body: ChatRequest, request: Request, service: CurrentService, principal: CurrentPrincipal
) -> ChatCompletion | Response:
    """Answer the last user message from the collection ``model`` names (OpenAI's chat API)."""
    started = time.monotonic()
    prepared = await run_in_threadpool(_prepare, service, body, principal, started)
    run = await service.start(prepared, tokens=bool(body.stream))
    cid, created = completion_id()
    if body.stream:
        return EventSourceResponse(_chunks(service, prepared, run, body.model, cid, created), ping=15,
                                   headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    result = await final_result(request, service, run)
    if isinstance(result, Response):
        return result
    service.respond(result, prepared)  # the run's metrics
    return ChatCompletion(
        id=cid, created=created, model=body.model,
        choices=[Choice(message=AssistantMessage(content=result.answer))],
        usage=_usage(result), selfrag=_extra(result, prepared),
    )


async def _chunks(
    service: Service, prepared: PreparedRun, run: Any, model: str, cid: str, created: int
) -> AsyncIterator[ServerSentEvent]:
    def chunk(delta: Delta, **fields: Any) -> ServerSentEvent:
        body = ChatCompletionChunk(id=cid, created=created, model=model, choices=[ChunkChoice(delta=delta)], **fields)
        return ServerSentEvent(data=body.model_dump_json(exclude_none=True))

    answer = AnswerStream()
    try:
        yield chunk(Delta(role="assistant", content=""))
        async for event in run.events():
            if isinstance(event, AnswerDelta):
                # A chat client can only append: a withdrawn text stays, followed by a notice.
                if answer.feed(event):
                    yield chunk(Delta(content=WITHDRAWN_RETRYING))
                yield chunk(Delta(content=event.text))
            elif isinstance(event, NodeEvent):
                # Progress as an SSE comment: clients skip it, and it keeps idle proxies from closing.
                yield ServerSentEvent(comment=f"node {event.node}")
            elif isinstance(event, Result):
                service.respond(event, prepared)
                final = answer.finish(event.answer, event.outcome.value)
                if not final.streamed:
                    yield chunk(Delta(content=final.answer))
                elif final.replaced:
                    yield chunk(Delta(content=WITHDRAWN_REPLACED + final.answer))
                last = ChatCompletionChunk(
                    id=cid, created=created, model=model, choices=[ChunkChoice(delta=Delta(), finish_reason="stop")],
                    usage=_usage(event),
                    selfrag=_extra(event, prepared, streamed=final),
                )
                yield ServerSentEvent(data=last.model_dump_json(exclude_none=True))
                yield ServerSentEvent(data="[DONE]")
    except SelfRagError as exc:
        service.record_failure(exc.code)
        status = status_for(exc)
        log_failure("POST", "/v1/chat/completions", exc, status)
        yield _error_event(exc.code, client_message(exc, status), status, exc)
    except asyncio.CancelledError:
        service.record_failure(CLIENT_GONE)
        raise
    except Exception:
        log.exception("stream of a chat completion failed")
        service.record_failure("internal")
        yield _error_event("internal", "internal error; the server log has the details", 500)
    finally:
        run.cancel()


def _error_event(code: str, message: str, status: int, exc: BaseException | None = None) -> ServerSentEvent:
    body = error_body(code, message, exc)
    error = {"message": body.pop("message"), "type": error_type(status), "param": None, **body}
    return ServerSentEvent(data=json.dumps({"error": error}, ensure_ascii=False))


@router.get("/models", response_model=ModelList, responses=errors(401, 403, 503, model=OpenAIErrorResponse))
def list_models(service: CurrentService, principal: CurrentPrincipal) -> ModelList:
    """The collections this key may read, as OpenAI models (``model`` in a chat request).

    ``created`` is when this server started: a model is a collection answered by the engine this
    server built at start-up (its models, settings and trained judge), and a Chroma collection
    records no creation time of its own. It stays the same for the server's life."""
    names = [n for n in service.store.list_collections() if principal.can_read(n)]
    return ModelList(data=[ModelCard(id=n, created=service.started_at) for n in names])
