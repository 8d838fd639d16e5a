"""The error responses a route declares in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from selfrag.service.models import ErrorResponse

__all__ = ["errors"]

_DESCRIPTIONS = {
    400: "Invalid body or parameters (code invalid_request, question_invalid, ingest_failed, …)",
    401: "Missing or invalid API key (unauthenticated)",
    403: "The key's scopes do not cover this collection (forbidden)",
    404: "Unknown collection, thread or document",
    409: "Conflict: the collection exists (collection_exists), or the thread's previous turn is still running (thread_busy)",
    413: "Request body too large (payload_too_large)",
    415: "Neither JSON nor multipart/form-data (unsupported_media_type)",
    422: "Filter invalid for the collection's schema (filter_invalid)",
    429: "Busy (overloaded): every run slot taken and the queue full, or this tenant's previous graph upload still running; retry after Retry-After",
    503: "The model or the store is unavailable",
    504: "The request's deadline passed (deadline_exceeded)",
}


def errors(*statuses: int, model: type[BaseModel] = ErrorResponse) -> dict[int | str, dict[str, Any]]:
    """``statuses`` described, each with the error body ``model`` (the OpenAI face has its own)."""
    return {s: {"model": model, "description": _DESCRIPTIONS[s]} for s in statuses}
