"""Prometheus metrics: requests, latency per endpoint and per graph node, LLM usage, outcomes.

Each app gets its own ``CollectorRegistry`` (tests start many apps in one process). Labels are
route *templates* (``/v1/collections/{name}``), never raw paths or collection names: raw values
would let one tenant read another's collection names off ``/metrics`` and would let a client
create unbounded label series.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from workflows.records import Timing

__all__ = ["Metrics", "MetricsMiddleware"]

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "selfrag_http_requests", "HTTP requests by route template and status.", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "selfrag_http_request_duration_seconds", "HTTP request latency (streams: until the last byte).",
            ["method", "route"], buckets=_LATENCY_BUCKETS, registry=r,
        )
        self.node_latency = Histogram(
            "selfrag_node_duration_seconds", "Time spent in each graph node.", ["node"], buckets=_LATENCY_BUCKETS, registry=r
        )
        self.runs = Counter("selfrag_runs", "Engine runs by outcome (or error code).", ["outcome"], registry=r)
        self.llm_calls = Counter("selfrag_llm_calls", "LLM calls made by runs.", registry=r)
        self.llm_tokens = Counter("selfrag_llm_tokens", "LLM tokens used by runs.", ["kind"], registry=r)
        self.rejected = Counter("selfrag_runs_rejected", "Runs refused or stopped by a limit.", ["reason"], registry=r)
        self.in_flight = Gauge("selfrag_runs_in_progress", "Runs holding a slot.", registry=r)
        self.queued = Gauge("selfrag_runs_queued", "Runs waiting for a slot.", registry=r)

    def record_run(self, outcome: str, timings: list[Timing], calls: int, input_tokens: int, output_tokens: int) -> None:
        self.runs.labels(outcome).inc()
        for t in timings:
            self.node_latency.labels(t["node"]).observe(t["ms"] / 1000)
        self.llm_calls.inc(calls)
        self.llm_tokens.labels("input").inc(input_tokens)
        self.llm_tokens.labels("output").inc(output_tokens)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every HTTP request under its route template."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def recording_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, recording_send)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope.get("method", "?")
            self.metrics.requests.labels(method, template, str(status)).inc()
            self.metrics.latency.labels(method, template).observe(time.perf_counter() - start)
