"""Request dependencies: the app's ``Service`` and the calling ``Principal``."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from fastapi import Depends, Header, Request

from selfrag.errors import Forbidden
from selfrag.service.auth import Principal
from selfrag.service.context import Service

__all__ = ["CurrentPrincipal", "CurrentService", "get_principal", "get_service"]


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def get_principal(
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer API key (when keys are configured)")] = None,
) -> Principal:
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
