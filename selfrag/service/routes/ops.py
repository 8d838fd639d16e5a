"""Operations: liveness, readiness and Prometheus metrics (no API key needed)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool

from selfrag.service.deps import AuthenticatedRoute, CurrentService
from selfrag.service.problems import error_body

__all__ = ["router"]

router = APIRouter(tags=["operations"], route_class=AuthenticatedRoute)


@router.head("/healthz", summary="Healthz (HEAD)")
@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the process answers HTTP.

    ``async`` on purpose: it runs on the event loop itself, so it answers even when every worker
    thread is busy (a liveness probe must not queue behind slow ingests)."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "A dependency is down: the body says which and why."}})
async def readyz(
    service: CurrentService,
    capability: Annotated[Literal["answers", "threads", "ingest", "graph"] | None, Query(
        description="Ask about one capability; without it, 503 only when questions cannot be answered.")] = None,
) -> JSONResponse:
    """Ready: every dependency checked at once (within about a second), and what each capability needs.

    200 while questions can be answered, ``status`` ``degraded`` when another capability (thread
    memory, the graph, ingests) is down; 503 ``not_ready`` naming the dependencies down otherwise,
    or when the ``capability`` asked about is down."""
    readiness = await run_in_threadpool(service.readiness)
    body: dict[str, Any] = {"capabilities": readiness.capabilities, "checks": readiness.checks}
    down = readiness.down(capability)
    if capability is not None and capability not in readiness.capabilities:
        body["status"] = "ready"  # not configured here (no graph, no thread memory): nothing to be down
        return JSONResponse(body)
    if down:
        what = capability or "answers"
        message = f"{what} unavailable: " + "; ".join(f"{n}: {readiness.checks[n].get('error', 'down')}" for n in down)
        return JSONResponse({"error": error_body("not_ready", message), **body}, status_code=503)
    degraded = any(not c["ready"] for c in readiness.capabilities.values())
    return JSONResponse({"status": "degraded" if degraded else "ready", **body})


@router.get("/metrics", response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
def metrics(service: CurrentService) -> Response:
    """Prometheus metrics: requests and latency per route, per-node latency, LLM calls and tokens, outcomes."""
    return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)
