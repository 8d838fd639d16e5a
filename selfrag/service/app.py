"""The FastAPI application: ``create_app`` wires routes, limits, metrics and error handlers.

The app is stateless between requests: threads live in the checkpoint store, documents in
Chroma. Point several instances at one Chroma server (``store.chroma_url``) and one Postgres
(``checkpoints.url``) and any instance can continue any conversation.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from selfrag.service.auth import Authenticator
from selfrag.service.context import Service
from selfrag.service.docs import install_docs
from selfrag.service.limits import BodySizeLimit
from selfrag.service.metrics import Metrics, MetricsMiddleware
from selfrag.service.problems import install_handlers
from selfrag.service.request_id import RequestIdMiddleware
from selfrag.service.routes import answers, chat, collections, documents, graphs, ops, threads
from selfrag.settings import Settings
from selfrag.store import Store
from workflows import SelfRagEngine

__all__ = ["create_app", "keys_file"]

log = logging.getLogger("selfrag.service")

API_DESCRIPTION = """\
Answers questions from a document collection with a Self-RAG corrective workflow:
self-query → retrieve (metadata pre-filter) → grade relevance → rewrite when nothing survives →
generate with citations → check groundedness and usefulness, under explicit loop budgets.

Errors are always `{"error": {"code": "...", "message": "..."}}`; codes are stable. The
OpenAI-compatible routes (`/v1/chat/completions`, `/v1/models`) answer in OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`, with the same codes.
"""


def keys_file(settings: Settings) -> Path:
    """The API key file: ``service.keys_file``, else ``$SELFRAG_HOME/keys.json``."""
    return settings.service.keys_file or settings.home / "keys.json"


def create_app(
    settings: Settings,
    *,
    engine: SelfRagEngine | None = None,
    store: Store | None = None,
    owned: bool = False,
) -> FastAPI:
    """Build the app. Without ``engine``/``store`` they are built from ``settings`` at start-up.

    Tests pass an engine around scripted fake models. ``owned``: the app closes the given engine's
    checkpointer and the store at shutdown (what it builds itself, it always closes).
    """
    authenticator = Authenticator(keys_file(settings))
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from workflows.factory import build_engine, close_checkpointer, open_store

        own_store = owned or store is None
        the_store = store if store is not None else open_store(settings)
        the_engine = engine if engine is not None else build_engine(settings, store=the_store)
        service = Service(settings, the_engine, the_store, authenticator, metrics)
        app.state.service = service
        if not authenticator.enabled:
            log.warning("no API keys configured: serving loopback clients only, without authentication")
        try:
            yield
        finally:
            service.close()
            if (owned or engine is None) and the_engine.checkpointer is not None:
                close_checkpointer(the_engine.checkpointer)
            if own_store:
                the_store.close()

    app = FastAPI(
        title="selfrag",
        version="0.1.0",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served from local files instead: selfrag.service.docs
        redoc_url=None,
    )
    install_docs(app)
    install_handlers(app)
    for router in (answers.router, threads.router, collections.router, documents.router, graphs.router, chat.router, ops.router):
        app.include_router(router)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    # Outermost first: metrics see every request, including those the size limit refuses.
    app.add_middleware(BodySizeLimit, max_bytes=settings.service.max_body_bytes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(RequestIdMiddleware)
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema without its default 422 ``HTTPValidationError`` responses: this service
    answers an invalid request with 400 ``invalid_request``, and keeps 422 for ``filter_invalid``."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                responses = operation.get("responses", {})
                default = responses.get("422", {}).get("content", {}).get("application/json", {}).get("schema", {})
                if default.get("$ref", "").endswith("/HTTPValidationError"):
                    del responses["422"]
                    responses.setdefault("400", {
                        "description": "Invalid body or parameters (invalid_request)",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
                    })
            for operation in path.values():
                # A server without keys serves loopback clients unauthenticated: the key is optional.
                if operation.get("security") == [{"bearer": []}]:
                    operation["security"] = [{"bearer": []}, {}]
        components = schema.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema
