"""``GET`` and ``DELETE /v1/threads/{thread_id}``: a conversation, as the engine stored it.

Thread ids live in the caller's tenant namespace, so another tenant's thread is simply not
found; a thread about a collection the key may not read is not found either.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam

from selfrag.errors import ThreadNotFound
from selfrag.service.auth import Principal
from selfrag.service.context import Service
from selfrag.service.deps import AuthenticatedRoute, CurrentPrincipal, CurrentService
from selfrag.service.models import THREAD_PATTERN, ThreadOut, TurnOut
from selfrag.service.routes._responses import errors
from workflows import ThreadInfo

__all__ = ["router"]

router = APIRouter(prefix="/v1/threads", tags=["threads"], route_class=AuthenticatedRoute)

ThreadId = Annotated[str, PathParam(pattern=THREAD_PATTERN, description="Conversation id")]


def _find(service: Service, principal: Principal, thread_id: str) -> ThreadInfo:
    info = service.engine.thread(principal.thread_key(thread_id))
    # Its answers came from every collection of its last turn: a key must be able to read them all.
    if info is None or not all(principal.can_read(name) for name in info.collections):
        raise ThreadNotFound(f"no thread {thread_id!r}")
    return info


@router.get("/{thread_id}", response_model=ThreadOut, responses=errors(400, 401, 403, 404, 503))
def get_thread(thread_id: ThreadId, service: CurrentService, principal: CurrentPrincipal) -> ThreadOut:
    """The conversation so far: each turn's question, standalone question, answer and outcome."""
    info = _find(service, principal, thread_id)
    return ThreadOut(thread_id=thread_id, collection=info.collection, collections=info.collections, turns=[TurnOut(**t) for t in info.turns])


@router.delete("/{thread_id}", status_code=204, responses=errors(400, 401, 403, 404, 409, 503))
def delete_thread(thread_id: ThreadId, service: CurrentService, principal: CurrentPrincipal) -> None:
    """Forget a conversation (every checkpoint of it)."""
    _find(service, principal, thread_id)
    service.engine.forget(principal.thread_key(thread_id))
