"""Every failure becomes ``{"error": {"code": ..., "message": ..., "request_id": ...}}`` with the right status.

``request_id`` is the ``X-Request-ID`` the server's log lines name; a ``DependencyUnavailable``
also says which dependency failed (``dependency``: ``model``, ``vector_store``, ``checkpoints``,
``graph``…), in a word, never its address.

The codes and statuses are those of ``selfrag.errors`` (each error class carries both); this
module installs the handlers. An unexpected exception is logged with its traceback and answered with a
bare ``internal`` error: a stack trace never reaches a client.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from selfrag import errors as e
from selfrag.breaker import BreakerOpen
from selfrag.outages import as_dependency_error, is_outage
from selfrag.service.request_id import current_request_id

__all__ = ["client_message", "error_body", "error_for", "error_response", "install_handlers", "log_failure", "status_for"]

log = logging.getLogger("selfrag.service")

_HTTP_CODES = {
    400: "invalid_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


def status_for(exc: e.SelfRagError) -> int:
    """The error class's own status (``selfrag.errors`` draws them beside the codes)."""
    return exc.status


def error_body(code: str, message: str, exc: BaseException | None = None) -> dict[str, str]:
    """The ``error`` object every face sends (JSON bodies, SSE ``error`` events, OpenAI's shape
    adds its own fields): the code, our message, the request id, and the failed dependency if any."""
    body = {"code": code, "message": e.one_line(message), "request_id": current_request_id()}
    if isinstance(exc, e.DependencyUnavailable):
        body["dependency"] = exc.dependency
    if isinstance(exc, e.UnsupportedParameter) and exc.param is not None:
        body["param"] = exc.param  # the OpenAI face's own field: the parameter refused
    return body


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None,
                   exc: BaseException | None = None) -> JSONResponse:
    return JSONResponse({"error": error_body(code, message, exc)}, status_code=status, headers=headers)


def client_message(exc: e.SelfRagError, status: int) -> str:
    """What a client is told: the error's HTTP wording, never its ``detail`` (which ``log_failure``
    writes to the log under the request id the client can quote)."""
    message = exc.for_http()
    if status >= 500 and exc.detail:
        message += f" (request {current_request_id()}; the server log has the details)"
    return message


def log_failure(method: str, path: str, exc: e.SelfRagError, status: int) -> None:
    """Log a server-side failure (5xx) with the request id and the internal detail."""
    if status >= 500:
        log.warning(
            "%s %s failed (request %s): [%s] %s%s",
            method, path, current_request_id(), exc.code, exc.one_line(), f" -- {exc.detail}" if exc.detail else "",
        )


def _selfrag_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, e.SelfRagError)
    status = status_for(exc)
    log_failure(request.method, request.url.path, exc, status)
    headers = {"Retry-After": "1"} if isinstance(exc, (e.Overloaded, e.ThreadBusy, e.ThreadConflict)) else None
    if isinstance(exc, e.Unauthenticated):
        headers = {"WWW-Authenticate": "Bearer"}
    return error_response(status, exc.code, client_message(exc, status), headers, exc)


def describe_validation(errors: list[Any]) -> str:
    """The first validation problem as one line: where it is and what is wrong (never the input)."""
    if not errors:
        return "invalid request"
    first = errors[0]
    loc = ".".join(str(x) for x in first.get("loc", ()) if x != "body") or "body"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{loc}: {message}{more}"


_QUESTION_CHECKS = ("string_too_short", "string_too_long", "string_unicode")
"""Checks of a question that the request's parsing makes first: its length (as the schema states
it), and text that is not Unicode (a lone surrogate, which ``SelfRagEngine.check_question``
refuses where no parser does: the chat face, the CLI)."""


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    # A collection's attribute schema (body field "schema") has its own code, whichever check
    # refused it: the CLI reports the same problems in a schema file as schema_invalid. A question
    # empty, too long or not text is question_invalid, as the engine's own check says on every route.
    first = errors[0] if errors else {}
    where = tuple(first.get("loc", ()))[:2]
    code = ("schema_invalid" if where == ("body", "schema")
            else "question_invalid" if where == ("body", "question") and first.get("type") in _QUESTION_CHECKS
            else "invalid_request")
    return error_response(400, code, describe_validation(errors))


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else "request failed"
    return error_response(exc.status_code, code, message, dict(exc.headers or {}))


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    if is_outage(exc):
        # A transport failure no layer translated (an embedding server refusing an ingest, an open
        # breaker raised through a client library): a dependency's 503, never a 500.
        return _selfrag_error(request, as_dependency_error(exc, _dependency_of(exc, request)))
    log.error(
        "%s %s: unexpected error (request %s)", request.method, request.url.path, current_request_id(), exc_info=exc
    )
    return error_response(500, "internal", f"internal error (request {current_request_id()}); the server log has the details")


def _dependency_of(exc: BaseException, request: Request) -> str:
    """Which endpoint failed: an open breaker names it; otherwise a write of documents embeds them."""
    link: BaseException | None = exc
    while link is not None:
        if isinstance(link, BreakerOpen):
            return "embeddings" if link.name.startswith("embeddings") else "model"
        link = link.__cause__ or link.__context__
    return "embeddings" if request.url.path.endswith("/documents") else "model"


def error_for(request: Request, exc: Exception) -> JSONResponse | None:
    """The response the app's handlers give ``exc`` (None for an unexpected exception), for a
    route that reshapes its errors (the OpenAI-compatible face)."""
    if isinstance(exc, e.SelfRagError):
        return _selfrag_error(request, exc)
    if isinstance(exc, RequestValidationError):
        return _validation_error(request, exc)
    if isinstance(exc, StarletteHTTPException):
        return _http_error(request, exc)
    return None


def install_handlers(app: FastAPI) -> None:
    app.add_exception_handler(e.SelfRagError, _selfrag_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
