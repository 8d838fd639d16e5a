"""``POST /v1/answers`` and ``POST /v1/answers/stream``."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from selfrag.errors import DeadlineExceeded, SelfRagError
from selfrag.service.context import Service
from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.events import EVENT_NAMES, STREAMED_NODES, node_event
from selfrag.service.models import AnswerRequest, AnswerResponse
from selfrag.service.problems import client_message, error_body, log_failure, status_for
from selfrag.service.routes._responses import errors
from selfrag.service.runs import Run
from workflows import AnswerDelta, AnswerStream, NodeEvent, Result

__all__ = ["router"]

log = logging.getLogger("selfrag.service")
router = APIRouter(prefix="/v1/answers", tags=["answers"], route_class=AuthenticatedRoute)

CLIENT_GONE = "client_disconnected"
"""The ``selfrag_runs`` label of a run whose client left before its answer."""
CLIENT_CLOSED_REQUEST = 499
"""The status recorded (in the request metrics) for a request whose client left: nginx's
convention; no client ever receives it."""

# OpenAPI 3.2's way to describe a stream: the schema of each event, not of the whole body.
_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"enum": EVENT_NAMES},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
}


IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=200, pattern=r"^[\x21-\x7e]+$",
    description="Makes a retried turn safe: on a thread, the same key returns the stored turn instead of a second one.",
)]


@router.post("", response_model=AnswerResponse, response_model_exclude_none=True,
             responses=errors(400, 401, 403, 404, 409, 413, 422, 429, 503, 504))
async def answer(
    body: AnswerRequest, request: Request, response: Response, service: CurrentService, principal: CurrentPrincipal,
    idempotency_key: IdempotencyKey = None,
) -> AnswerResponse | Response:
    """Answer a question from a collection: self-query, retrieve, grade, rewrite, generate, check.

    A client that disconnects before the answer stops the run at its next node. On a thread, an
    ``Idempotency-Key`` is stored with the turn: a retry with the same key (after a lost response,
    or a 503 whose turn was stored after all) gets that turn back (``replayed``, header
    ``Idempotent-Replayed: true``) and nothing runs again.
    """
    started = time.monotonic()
    prepared = await run_in_threadpool(service.prepare, body, principal, started=started, request_key=idempotency_key)
    run = await service.start(prepared)
    result = await final_result(request, service, run)
    if isinstance(result, Response):
        return result
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return service.respond(result, prepared)


async def final_result(request: Request, service: Service, run: Run) -> Result | Response:
    """The run's ``Result``, stopping the run if the client disconnects first (then a 499 response
    to record; nobody receives it).

    Raises:
        SelfRagError: the run failed (recorded in the metrics).
        DeadlineExceeded: the run was stopped at the request's deadline.
    """
    watcher = asyncio.create_task(_cancel_on_disconnect(request, run))
    result: Result | None = None
    try:
        async for event in run.events():
            if isinstance(event, Result):
                result = event
    except SelfRagError as exc:
        service.record_failure(exc.code)
        raise
    finally:
        client_left = watcher.done()  # it returns only when the client disconnects
        watcher.cancel()
    if result is None:  # the run was stopped before its result
        if client_left:
            # Nobody is left to answer: count it (no error, no traceback in the log).
            service.record_failure(CLIENT_GONE)
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        service.record_failure(DeadlineExceeded.code)
        raise DeadlineExceeded("the run did not finish within the request's deadline; it was stopped")
    return result


async def _cancel_on_disconnect(request: Request, run: Run) -> None:
    """Wait for the client to go away (the body is already read) and stop the run if it does."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            run.cancel()
            return


@router.post(
    "/stream",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "Server-Sent Events: one per graph node as it finishes "
            f"({', '.join(STREAMED_NODES.values())}); `answer_delta` ({{delta, generation, attempt}}) for each "
            "piece of an answer as a model writes it, before it is checked; `answer_reset` when a new attempt "
            "starts writing (withdraw the text shown); `answer` ({answer, outcome, replaced}: the answer to show, "
            "`replaced` when it is not the text streamed); then `result` (the same body as POST /v1/answers) or `error`.",
            "content": {"text/event-stream": {"itemSchema": _EVENT_SCHEMA}},
        },
        **errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
    },
)
async def answer_stream(
    body: AnswerRequest, service: CurrentService, principal: CurrentPrincipal, idempotency_key: IdempotencyKey = None,
) -> EventSourceResponse:
    """The same question, answered as a stream of Server-Sent Events. Disconnecting stops the run.

    Everything that can be checked before the run (auth, scopes, question, collection, filter,
    capacity) fails with a plain JSON error and status; failures after the stream began arrive as
    an ``error`` event with the same ``code``/``message`` body. A retried ``Idempotency-Key``'s
    stored turn comes as the answer and ``result`` events, with the header ``Idempotent-Replayed: true``.
    """
    started = time.monotonic()
    prepared = await run_in_threadpool(service.prepare, body, principal, started=started, request_key=idempotency_key)
    run = await service.start(prepared, tokens=True)
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    if prepared.options.request_key is not None:
        # Whether it is a replay is known only once the run holds the thread's lock (a retry waits
        # for the turn it repeats): the headers wait for the run's first event, the replay itself.
        first = await run.peek()
        if isinstance(first, Result) and first.replayed:
            headers["Idempotent-Replayed"] = "true"

    async def stream() -> AsyncIterator[ServerSentEvent]:
        answer = AnswerStream()
        try:
            async for event in run.events():
                if isinstance(event, AnswerDelta):
                    where = {"generation": event.generation, "attempt": event.attempt}
                    if answer.feed(event):
                        yield ServerSentEvent(data=_json(where), event="answer_reset")
                    yield ServerSentEvent(data=_json({"delta": event.text, **where}), event="answer_delta")
                elif isinstance(event, NodeEvent):
                    described = node_event(event.node, event.update)
                    if described is not None:
                        yield ServerSentEvent(data=_json(described[1]), event=described[0])
                    if event.update.get("clarification"):
                        yield ServerSentEvent(data=_json(dict(event.update["clarification"])), event="clarification")
                elif isinstance(event, Result):
                    response = service.respond(event, prepared)
                    final = answer.finish(event.answer, event.outcome.value)
                    if not final.streamed:  # the trained reader (or a fixed message): the answer in one delta
                        yield ServerSentEvent(data=_json({"delta": final.answer, "generation": 0, "attempt": 0}),
                                              event="answer_delta")
                    yield ServerSentEvent(data=_json({"answer": final.answer, "outcome": final.outcome,
                                                      "replaced": final.replaced}), event="answer")
                    yield ServerSentEvent(data=response.model_dump_json(exclude_none=True), event="result")
        except SelfRagError as exc:
            service.record_failure(exc.code)
            status = status_for(exc)
            log_failure("POST", "/v1/answers/stream", exc, status)
            error = {**error_body(exc.code, client_message(exc, status), exc), "status": status}
            yield ServerSentEvent(data=_json({"error": error}), event="error")
        except asyncio.CancelledError:
            service.record_failure(CLIENT_GONE)  # the client went away mid-stream
            raise
        except Exception:
            log.exception("stream of a run failed")
            service.record_failure("internal")
            error = {**error_body("internal", "internal error; the server log has the details"), "status": 500}
            yield ServerSentEvent(data=_json({"error": error}), event="error")
        finally:
            run.cancel()  # a disconnect cancels this generator: stop the engine at its next node

    return EventSourceResponse(stream(), ping=15, headers=headers)


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)
