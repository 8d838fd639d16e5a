"""``selfrag serve``: the HTTP API."""

from __future__ import annotations

import typer

from selfrag.cli._common import fail, handle_errors

__all__ = ["LOG_LEVELS", "serve"]

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
"""uvicorn's log levels."""


@handle_errors
def serve(
    host: str | None = typer.Option(None, help="Address to bind (default: service.host, 127.0.0.1)."),
    port: int | None = typer.Option(None, min=0, max=65535, help="Port (default: service.port, 8000)."),
    log_level: str = typer.Option("info", help="Log level: critical, error, warning, info, debug, trace."),
) -> None:
    """Serve the answer API (FastAPI on uvicorn). OpenAPI at /docs and /openapi.json.

    Without API keys it only binds to loopback; add keys with 'selfrag keys add'.

    Example: selfrag serve --host 127.0.0.1 --port 8000
    """
    from selfrag.service import serve as run_server
    from selfrag.settings import load_settings

    if log_level.lower() not in LOG_LEVELS:
        fail(f"--log-level {log_level!r} is not a log level (use one of: {', '.join(LOG_LEVELS)})")
    settings = load_settings()
    run_server(
        settings,
        host=host or settings.service.host,
        port=settings.service.port if port is None else port,
        log_level=log_level.lower(),
    )
