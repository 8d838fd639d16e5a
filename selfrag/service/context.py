"""The service's shared state and the steps of answering a request, outside any route.

One ``Service`` per app: the engine, the store, the authenticator, the run slots and the metrics.
Routes parse and format; this module decides (scope checks before lookups, filter validation
before a slot is taken, budgets capped, tenant-namespaced thread ids).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from selfrag.errors import (
    CollectionNotFound,
    GraphUnavailable,
    InvalidFilter,
    SelfRagError,
    StoreError,
    WriteConflict,
    describe,
)
from selfrag.kg import GraphStore
from selfrag.query import parse_where
from selfrag.service.auth import Authenticator, Principal
from selfrag.service.locks import CollectionLocks
from selfrag.service.metrics import Metrics
from selfrag.service.models import AnswerRequest, AnswerResponse, SearchOptions
from selfrag.service.request_id import current_request_id
from selfrag.service.runs import Run, RunSlots
from selfrag.settings import ServiceSettings, Settings
from selfrag.store import Collection, Store
from workflows import AnswerDelta, NodeEvent, Result, RunOptions, SelfRagEngine, Turn
from workflows.checkpoints import POSTGRES_SCHEMES
from workflows.resources import Resource, ResourceSearch
from workflows.tracing import span_attributes

__all__ = ["PreparedRun", "Service"]

log = logging.getLogger("selfrag.service")
T = TypeVar("T")


@dataclass(frozen=True)
class PreparedRun:
    """A request checked and ready to run: everything the engine needs, and for whom."""

    principal: Principal
    question: str
    collection: str
    thread_id: str | None
    """As the client named it; the engine sees the tenant-namespaced id."""
    options: RunOptions
    resources: tuple[Resource, ...]
    """Several collections or per-collection settings; empty: ``collection`` alone, as always."""
    include_trace: bool
    deadline: float
    """``time.monotonic()`` by which the run must finish (queueing included)."""
    history: list[Turn] | None = None
    """The conversation a stateless client sent (the chat face), for a run without ``thread_id``."""


class Service:
    def __init__(
        self, settings: Settings, engine: SelfRagEngine, store: Store, authenticator: Authenticator, metrics: Metrics
    ) -> None:
        self.settings = settings
        self.config: ServiceSettings = settings.service
        self.engine = engine
        self.store = store
        self.auth = authenticator
        self.metrics = metrics
        self.slots = RunSlots(
            self.config.max_concurrent_runs,
            self.config.max_queued_runs,
            self.config.queue_timeout_s,
            per_tenant=self.config.max_runs_per_tenant,
        )
        self.ingests = ThreadPoolExecutor(max_workers=self.config.max_concurrent_ingests, thread_name_prefix="selfrag-ingest")
        shared = settings.checkpoints.url
        self.locks = CollectionLocks(shared if shared and shared.startswith(POSTGRES_SCHEMES) else None)
        self.started_at = int(time.time())
        """When this server started (Unix seconds): ``created`` of every model ``/v1/models`` lists."""

    # -- answering ---------------------------------------------------------------------------------
    def prepare(self, body: AnswerRequest, principal: Principal, *, started: float) -> PreparedRun:
        """Check a request before it takes a run slot (blocking: call from a worker thread).

        Raises:
            Forbidden: the key may not read the collection (checked before the name is looked up).
            CollectionNotFound, InvalidFilter, UsageError.
        """
        names = body.names()
        for name in names:  # every scope before any lookup: a forbidden name gets no answer at all
            principal.require_read(name)
        if body.thread_id is not None:
            # Continuing a thread reads its history, answers drawn from every collection it used.
            known = self.engine.thread(principal.thread_key(body.thread_id))
            for name in known.collections if known is not None else ():
                principal.require_read(name)
        for name in names:  # a collection linked (before scopes were checked at creation) to a graph the key may not read
            try:
                link = self.store.get_collection(name).schema.graph
            except CollectionNotFound:
                continue  # one collection: 404 below; several: recorded in the trace
            if link is not None:
                principal.require_graph(link.graph)
        resources: tuple[Resource, ...] = ()
        if len(names) == 1 and not body.search:
            collection = self.store.get_collection(names[0])
            if body.filter is not None:
                if not body.filter:
                    raise InvalidFilter("filter is empty; omit it or give a where clause")
                parse_where(body.filter, collection.schema)
        else:
            resources = tuple(self._resource(name, (body.search or {}).get(name), body.filter) for name in names)
        d = self.engine.defaults
        options = self.engine.with_options(
            max_rewrites=min(body.max_rewrites if body.max_rewrites is not None else d.max_rewrites, self.config.max_rewrites_cap),
            max_generations=min(
                body.max_generations if body.max_generations is not None else d.max_generations, self.config.max_generations_cap
            ),
            mandatory_where=body.filter,
            # Waiting for the thread's previous turn counts against the request's deadline.
            turn_wait_s=min(d.turn_wait_s, self.config.deadline_s),
        )
        return PreparedRun(
            principal=principal,
            question=body.question,
            collection=names[0],
            resources=resources,
            thread_id=body.thread_id,
            options=options,
            include_trace=body.include_trace,
            deadline=started + self.config.deadline_s,
        )

    async def start(self, prepared: PreparedRun, *, tokens: bool = False) -> Run:
        """Take a run slot (429/504 when none comes) and start the engine in a worker thread
        (``tokens``: its events include the answer's tokens as a model writes them)."""
        self.metrics.queued.inc()
        try:
            await self.slots.acquire(prepared.deadline, prepared.principal.tenant)
        except Exception as exc:
            self.metrics.rejected.labels(getattr(exc, "code", "error")).inc()
            raise
        finally:
            self.metrics.queued.dec()
        self.metrics.in_flight.inc()
        thread_key = prepared.principal.thread_key(prepared.thread_id) if prepared.thread_id else None

        request_id = current_request_id()  # read here: the worker thread does not have the request's context

        def source() -> Iterator[NodeEvent | AnswerDelta | Result]:
            try:
                with span_attributes(request_id=request_id):
                    yield from self.engine.stream(
                        prepared.question, collection=None if prepared.resources else prepared.collection,
                        resources=prepared.resources or None, thread_id=thread_key, options=prepared.options,
                        history=prepared.history, tokens=tokens,
                    )
            finally:
                self.metrics.in_flight.dec()

        return Run(source, slots=self.slots, deadline=prepared.deadline, tenant=prepared.principal.tenant)

    def respond(self, result: Result, prepared: PreparedRun) -> AnswerResponse:
        """The response body; also records the run's metrics."""
        t = result.trace
        self.metrics.record_run(result.outcome.value, t.timings, t.llm.calls, t.llm.input_tokens, t.llm.output_tokens)
        # The body is the result itself (same field names), with the thread asked for, the budgets
        # and usage lifted out of the trace, and the trace only when asked for.
        return AnswerResponse.model_validate({
            **result.model_dump(mode="json", exclude={"trace"}),
            "thread_id": prepared.thread_id,
            "budgets": dict(t.budgets),
            "usage": t.llm.model_dump(),
            "trace": t.model_dump(mode="json") if prepared.include_trace else None,
        })

    def _resource(self, name: str, search: SearchOptions | None, where: dict[str, Any] | None) -> Resource:
        """One requested collection with its search settings; its filter checked against its schema
        when it exists (an unknown one is the engine's to report in the trace, beside the others' answer)."""
        s = search or SearchOptions()
        where = s.filter if s.filter is not None else where
        if where is not None:
            if not where:
                raise InvalidFilter(f"the filter of {name!r} is empty; omit it or give a where clause")
            if self.store.has_collection(name):
                parse_where(where, self.store.get_collection(name).schema)
        return Resource(name, ResourceSearch(k=s.k, min_score=s.min_score, where=where, self_query=s.self_query))

    def record_failure(self, code: str) -> None:
        self.metrics.runs.labels(f"error:{code}").inc()

    # -- collections -------------------------------------------------------------------------------
    def readable_collection(self, principal: Principal, name: str) -> Collection:
        principal.require_read(name)
        return self.store.get_collection(name)

    @contextmanager
    def writing(self, principal: Principal, name: str) -> Iterator[Collection]:
        """The collection, opened under its write lock (see ``locks``): opened *inside* the lock,
        so the catalogue it merges into is the one the previous writer saved."""
        principal.require_write(name)
        with self.locks.hold(name) as lease:
            collection = self.store.get_collection(name)

            def still_ours() -> None:
                if not lease.held():
                    raise WriteConflict(
                        f"another request took collection {name!r}'s write lock while this write ran (its lock was "
                        "lost); the write stopped before its catalogue was saved: send it again"
                    )

            collection.before_commit = still_ours
            try:
                yield collection
            finally:
                # Inside the lock: the next writer's refresh starts from this one's index.
                self.engine.components.retrieval.refresh(collection)

    # -- knowledge graphs --------------------------------------------------------------------------
    def graph_store(self) -> GraphStore:
        """The engine's graph store (embedded FalkorDB, or ``graph.url``), opened on first use.

        Raises:
            GraphUnavailable: none is configured, or it cannot be reached.
        """
        graphs = self.engine.components.graphs
        if graphs is None:
            raise GraphUnavailable("no knowledge-graph store is configured for this service")
        return graphs.store

    # -- readiness ---------------------------------------------------------------------------------
    def readiness(self) -> dict[str, Any]:
        """Check the store, the checkpoint store and the model; each check says ok or why not."""
        checks: dict[str, Any] = {}
        start = time.perf_counter()
        try:
            self.store.list_collections()
            checks["store"] = {"ok": True}
        except StoreError as exc:
            checks["store"] = {"ok": False, "error": exc.for_http()}
            if exc.detail:
                log.warning("readiness: store: %s (%s)", exc.one_line(), exc.detail)
        saver = self.engine.checkpointer
        if saver is not None:
            try:
                saver.get_tuple({"configurable": {"thread_id": "__readyz__", "checkpoint_ns": ""}})
                checks["checkpoints"] = {"ok": True}
            except Exception as exc:  # any driver error means "not ready", never a 500
                # The probe is unauthenticated: the driver's text (hosts, paths) stays in the log.
                log.warning("readiness: checkpoint store: %s", describe(exc, 500))
                checks["checkpoints"] = {"ok": False, "error": "the checkpoint store cannot be read (the server log has the details)"}
        graphs = self.engine.components.graphs
        if graphs is not None and not graphs.opened and not self.settings.graph.url:
            # The embedded server starts with the first question over a linked collection.
            checks["graph"] = {"ok": True, "embedded": True, "started": False}
        elif graphs is not None:
            try:
                graphs.ping()
                checks["graph"] = {"ok": True}
            except SelfRagError as exc:
                checks["graph"] = {"ok": False, "error": exc.for_http()}
                if exc.detail:
                    log.warning("readiness: graph: %s (%s)", exc.one_line(), exc.detail)
        checks["model"] = self._model_check()
        checks["ms"] = round((time.perf_counter() - start) * 1000, 1)
        return checks

    def _model_check(self) -> dict[str, Any]:
        llm = self.settings.llm
        if llm.provider == "local":
            # In-process: it is loaded with the engine, so if we are serving it is there.
            return {"ok": True, "provider": "local"}
        import httpx

        base = (llm.base_url or "https://api.openai.com/v1").rstrip("/")
        headers = {"Authorization": f"Bearer {llm.api_key.get_secret_value()}"} if llm.api_key else {}
        try:
            reply = httpx.get(f"{base}/models", headers=headers, timeout=3.0)
        except httpx.HTTPError as exc:
            return {"ok": False, "provider": "openai", "error": f"cannot reach {base}: {type(exc).__name__}"}
        if reply.status_code >= 500:
            return {"ok": False, "provider": "openai", "error": f"{base}/models answered {reply.status_code}"}
        return {"ok": True, "provider": "openai"}

    async def off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking ingest work (reading files, extraction, embedding, Chroma writes) on the
        ingest workers, with this request's context (its request id, for the logs)."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self.ingests, functools.partial(context.run, fn, *args))

    def close(self) -> None:
        self.engine.close()  # its graph store and rerank client
        self.slots.shutdown()
        self.ingests.shutdown(wait=False, cancel_futures=True)
