"""Operations: liveness, readiness and Prometheus metrics (no API key needed)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool

from selfrag.service.deps import CurrentService
from selfrag.service.problems import error_body

__all__ = ["router"]

router = APIRouter(tags=["operations"])

READY_TIMEOUT_S = 5.0
"""A load balancer's probe must get an answer, even when a dependency hangs rather than fails."""


@router.head("/healthz", summary="Healthz (HEAD)")
@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the process answers HTTP.

    ``async`` on purpose: it runs on the event loop itself, so it answers even when every worker
    thread is busy (a liveness probe must not queue behind slow ingests)."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "A dependency is down: the body says which and why."}})
async def readyz(service: CurrentService) -> JSONResponse:
    """Ready: the vector store, the checkpoint store and the model are reachable."""
    try:
        checks: dict[str, Any] = await asyncio.wait_for(run_in_threadpool(service.readiness), READY_TIMEOUT_S)
    except TimeoutError:
        message = f"readiness checks did not finish within {READY_TIMEOUT_S:g} s (a dependency hangs)"
        return JSONResponse({"error": error_body("not_ready", message)}, status_code=503)
    down = [name for name, c in checks.items() if isinstance(c, dict) and not c.get("ok")]
    if down:
        message = "; ".join(f"{n}: {checks[n].get('error', 'down')}" for n in down)
        return JSONResponse({"error": error_body("not_ready", message), "checks": checks}, status_code=503)
    return JSONResponse({"status": "ready", "checks": checks})


@router.get("/metrics", response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
def metrics(service: CurrentService) -> Response:
    """Prometheus metrics: requests and latency per route, per-node latency, LLM calls and tokens, outcomes."""
    return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)
