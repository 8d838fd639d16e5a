"""Request body size limit, as a pure ASGI middleware.

It rejects a declared ``Content-Length`` over the limit before reading a byte, and counts the
bytes of bodies sent without one (chunked uploads), failing as soon as the count passes the
limit, so a client can never make the server buffer more than ``max_bytes``.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodySizeLimit"]


class BodyTooLarge(HTTPException):
    """Raised inside ``receive`` when a streamed body passes the limit.

    An ``HTTPException`` because FastAPI turns any other error met while reading a body into a
    400; this one passes through its body parsing untouched and becomes a 413.
    """

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"request body larger than {max_bytes} bytes")


class BodySizeLimit:
    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                await _reject(send, 400, "invalid_request", "invalid Content-Length header")
                return
            if too_big:
                await _reject(send, 413, "payload_too_large", self._message())
                return

        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await _reject(send, 413, "payload_too_large", self._message())

    def _message(self) -> str:
        return f"request body larger than {self.max_bytes} bytes"


async def _reject(send: Send, status: int, code: str, message: str) -> None:
    from selfrag.service.problems import error_body

    body = json.dumps({"error": error_body(code, message)}, separators=(",", ":")).encode()  # as JSONResponse writes
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})
