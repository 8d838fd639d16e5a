"""Request dependencies: the app's ``Service`` and the calling ``Principal``."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from selfrag.errors import Forbidden
from selfrag.service.auth import Principal
from selfrag.service.context import Service

__all__ = ["BEARER", "CurrentPrincipal", "CurrentService", "get_principal", "get_service"]


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
