"""Request dependencies: the app's ``Service`` and the calling ``Principal``; and the route class
that authenticates the caller before anything of the request is read.

FastAPI reads and parses a body before it solves a route's dependencies, so a caller with a wrong
key used to get 400 with the body's problems (schema hints: "bogus: Extra inputs are not
permitted") before 401. Every router is built with ``AuthenticatedRoute``: a route that needs a
principal authenticates first, and an unauthenticated caller learns nothing of the request.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from selfrag.errors import Forbidden
from selfrag.service.auth import Principal
from selfrag.service.context import Service

__all__ = ["BEARER", "AuthenticatedRoute", "CurrentPrincipal", "CurrentService", "get_principal", "get_service",
           "needs_principal"]


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


BEARER = HTTPBearer(
    auto_error=False, scheme_name="bearer",
    description="An API key (`selfrag keys create`), sent as `Authorization: Bearer <key>`; not needed by a "
    "server without keys, which serves loopback clients only.",
)
"""Declares the Bearer scheme in the OpenAPI schema (Swagger UI's "Authorize" button); the header
itself is read by ``get_principal``, so a malformed one gets this API's own error."""


def get_principal(
    request: Request, _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)] = None,
) -> Principal:
    if isinstance(known := getattr(request.state, "principal", None), Principal):
        return known  # authenticated before the body was read (``AuthenticatedRoute``)
    authorization = request.headers.get("authorization")
    service = get_service(request)
    if not service.auth.enabled and not _is_loopback(request.client.host if request.client else None):
        # Without keys the server must only be reachable from this machine; refuse anything else
        # even if it was bound wider by mistake (or sits behind a forwarding proxy).
        raise Forbidden("this server has no API keys configured and only serves loopback clients")
    return service.auth.authenticate(authorization)


def _is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


CurrentService = Annotated[Service, Depends(get_service)]
CurrentPrincipal = Annotated[Principal, Depends(get_principal)]


def needs_principal(dependant: Dependant) -> bool:
    """Whether a route (or a dependency of it, at any depth) needs the caller's principal."""
    return any(d.call is get_principal or needs_principal(d) for d in dependant.dependencies)


class AuthenticatedRoute(APIRoute):
    """A route that authenticates its caller (when it needs a principal) before FastAPI reads,
    parses and validates the request's body: 401 comes before any 400."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if not needs_principal(self.dependant):
            return handler

        async def route(request: Request) -> Response:
            # The key file may be re-read from disk: off the event loop, as FastAPI runs the dependency.
            request.state.principal = await run_in_threadpool(get_principal, request)
            return await handler(request)

        return route
