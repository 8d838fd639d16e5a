"""``X-Request-ID``: every response carries one (the client's own when it sent a sane one), and the
server's log lines about a failed request name it, so a client's report can be found in the logs."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["RequestIdMiddleware", "current_request_id"]

_SANE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_current: ContextVar[str] = ContextVar("selfrag_request_id", default="-")


def current_request_id() -> str:
    """The id of the request being handled (``-`` outside one)."""
    return _current.get()


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _SANE.match(given) else uuid.uuid4().hex
        # Not reset afterwards: each request runs in its own task (its own context copy), and the
        # handler of unexpected errors runs outside this middleware, where it must still see the id.
        _current.set(request_id)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        await self.app(scope, receive, send_with_id)
