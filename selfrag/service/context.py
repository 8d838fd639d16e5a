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
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from selfrag.deadline import deadline_scope
from selfrag.errors import (
    GraphUnavailable,
    InvalidFilter,
    Overloaded,
    PayloadTooLarge,
    SelfRagError,
    StoreError,
    WriteConflict,
    describe,
)
from selfrag.kg import GraphStore, LoadReport
from selfrag.profiles import profile_named
from selfrag.query import parse_where
from selfrag.service.auth import Authenticator, Principal
from selfrag.service.locks import CollectionLocks
from selfrag.service.metrics import Metrics
from selfrag.service.models import AnswerRequest, AnswerResponse, PlanOut, PlanRequest, SearchOptions
from selfrag.service.request_id import current_request_id
from selfrag.service.runs import Run, RunSlots
from selfrag.settings import ServiceSettings, Settings
from selfrag.store import Collection, Store
from workflows import AnswerDelta, NodeEvent, Result, RunOptions, SelfRagEngine, Turn
from workflows.checkpoints import POSTGRES_SCHEMES
from workflows.graph_resolution import graph_context
from workflows.resources import Resource, ResourceSearch
from workflows.tracing import span_attributes

__all__ = ["CAPABILITIES", "READY_CHECK_S", "PreparedRun", "Readiness", "Service"]

log = logging.getLogger("selfrag.service")
T = TypeVar("T")


READY_CHECK_S = 0.8
"""Each readiness check's limit; they run at once, so ``/readyz`` answers within about a second
even when a dependency hangs."""

CAPABILITIES: dict[str, tuple[str, ...]] = {
    "answers": ("store", "model", "embeddings"),
    "threads": ("checkpoints",),
    "ingest": ("store", "embeddings", "collection_locks"),
    "graph": ("graph",),
}
"""What each kind of request needs. ``/readyz`` is 503 only when ``answers`` cannot work: with the
graph server down, questions over collections without a graph are still answered, so a load
balancer must not take the instance out (``/readyz?capability=graph`` asks about one capability)."""


@dataclass(frozen=True)
class Readiness:
    capabilities: dict[str, dict[str, Any]]
    """Per capability: ``ready`` and the dependencies ``down``."""
    checks: dict[str, Any]
    """Per dependency: ``ok`` and, when not, ``error``; ``ms`` the whole probe's time."""

    def down(self, capability: str | None = None) -> list[str]:
        """The dependencies down for ``capability`` (None: for answering)."""
        cap = self.capabilities.get(capability or "answers")
        return [] if cap is None else list(cap["down"])


def _tighter(asked: int | None, cap: int | None) -> int | None:
    """A request's cap under the server's: the smaller of the two that are set."""
    return min(v for v in (asked, cap) if v is not None) if asked is not None or cap is not None else None


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
        # Readiness probes in threads of their own: a hung dependency must not take the probe's
        # answer (nor an ingest worker) with it.
        self._probes = ThreadPoolExecutor(max_workers=8, thread_name_prefix="selfrag-ready")
        # Graph uploads: a worker of their own, one upload per tenant at a time (``load_graph``).
        self.graph_loads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="selfrag-graph")
        self._graph_tenants: set[str] = set()
        self._graph_tenants_lock = threading.Lock()
        shared = settings.checkpoints.url
        self.locks = CollectionLocks(shared if shared and shared.startswith(POSTGRES_SCHEMES) else None)
        self.started_at = int(time.time())
        """When this server started (Unix seconds): ``created`` of every model ``/v1/models`` lists."""

    # -- answering ---------------------------------------------------------------------------------
    def prepare(self, body: AnswerRequest, principal: Principal, *, started: float,
                request_key: str | None = None) -> PreparedRun:
        """Check a request before it takes a run slot (blocking: call from a worker thread).

        Raises:
            Forbidden: the key may not read the collection (checked before the name is looked up).
            InvalidQuestion: the engine's check (``SelfRagEngine.check_question``), here rather than
                in the run: a stream then gets a plain 400, not an error event after its start.
            CollectionNotFound, InvalidFilter, UsageError.
        """
        names = body.names()
        for name in names:  # every scope before any lookup: a forbidden name gets no answer at all
            principal.require_read(name)
        self.engine.check_question(body.question)
        if body.thread_id is not None:
            # Continuing a thread reads its history, answers drawn from every collection it used.
            known = self.engine.thread(principal.thread_key(body.thread_id))
            for name in known.collections if known is not None else ():
                principal.require_read(name)
        for name in names:  # a collection linked (before scopes were checked at creation) to a graph the key may not read
            # A name the request gives that names no collection is a 404, one name or several: an
            # answer from the others would pass for one from all it named.
            link = self.store.get_collection(name).schema.graph
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
            max_llm_calls=_tighter(body.max_llm_calls, d.max_llm_calls),
            max_llm_tokens=_tighter(body.max_llm_tokens, d.max_llm_tokens),
            request_key=request_key if body.thread_id is not None else None,
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
            "replayed": True if result.replayed else None,
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
    def plan(self, principal: Principal, name: str, body: PlanRequest) -> PlanOut:
        """The self-query step alone for ``body.question`` over collection ``name``: the engine's
        own planner, with the collection's schema, catalogue and linked graph, as a run would.

        Raises:
            InvalidQuestion: the engine's check (``SelfRagEngine.check_question``).
            CollectionNotFound: no such collection (after the key's scope is checked).
        """
        question = self.engine.check_question(body.question)
        coll = self.readable_collection(principal, name)
        graph = graph_context(coll.schema, self.engine.components.graphs)
        planned = self.engine.components.planner.plan(question, coll.schema, coll.catalogue(), graph=graph)
        return PlanOut(**planned.shown(explain=body.explain))

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

    async def load_graph(self, principal: Principal, name: str, nodes: Any, edges: Any) -> LoadReport:
        """Load a graph on the graph worker, one upload per tenant at a time, within
        ``graph_load_deadline_s``.

        Uploads have a worker of their own: a tenant's large graph never holds the ingest workers
        (another tenant's one-document ingest went unanswered for minutes behind two of them).

        Raises:
            PayloadTooLarge: more nodes and edges than ``max_graph_elements``.
            Overloaded: this tenant's previous upload is still running (429, Retry-After).
            DeadlineExceeded: the load did not finish in time (part of it is written).
        """
        size = len(nodes) + len(edges)
        if size > self.config.max_graph_elements:
            raise PayloadTooLarge(
                f"the graph has {size} nodes and edges; one upload may carry {self.config.max_graph_elements}: "
                "send it in parts (loads are idempotent upserts)"
            )
        with self._graph_tenants_lock:
            if principal.tenant in self._graph_tenants:
                raise Overloaded("a graph upload of this tenant is still running; send this one when it has finished")
            self._graph_tenants.add(principal.tenant)
        try:
            store = await self.off_loop(self.graph_store)
            deadline = time.monotonic() + self.config.graph_load_deadline_s

            def load() -> LoadReport:
                with deadline_scope(deadline):
                    return store.load(name, nodes, edges)

            context = contextvars.copy_context()
            return await asyncio.get_running_loop().run_in_executor(self.graph_loads, context.run, load)
        finally:
            with self._graph_tenants_lock:
                self._graph_tenants.discard(principal.tenant)

    # -- readiness ---------------------------------------------------------------------------------
    def readiness(self) -> Readiness:
        """Check every dependency at once, each within ``READY_CHECK_S``, and say which
        capabilities they leave working (``CAPABILITIES``)."""
        start = time.perf_counter()
        probes: dict[str, Callable[[], dict[str, Any]]] = {"store": self._store_check, "model": self._model_check}
        if profile_named(self.settings.embeddings.provider).embeddings_ready is not None:
            probes["embeddings"] = self._embeddings_check
        if self.engine.checkpointer is not None:
            probes["checkpoints"] = self._checkpoint_check
        if self.engine.components.graphs is not None:
            probes["graph"] = self._graph_check
        if self.locks.postgres_url is not None:
            probes["collection_locks"] = self._collection_lock_check
        futures = {name: self._probes.submit(contextvars.copy_context().run, probe) for name, probe in probes.items()}
        ends = time.monotonic() + READY_CHECK_S
        checks: dict[str, Any] = {}
        for name, future in futures.items():
            try:
                checks[name] = future.result(timeout=max(0.0, ends - time.monotonic()))
            except FutureTimeout:
                checks[name] = {"ok": False, "error": f"did not answer within {READY_CHECK_S:g} s"}
            except Exception as exc:  # any failure of a probe means "not ready", never a 500
                log.warning("readiness: %s: %s", name, describe(exc, 500))
                checks[name] = {"ok": False, "error": f"the {name} check failed (the server log has the details)"}
        capabilities = {
            cap: {"ready": not (down := [d for d in needs if d in checks and not checks[d]["ok"]]), "down": down}
            for cap, needs in CAPABILITIES.items()
            if any(d in checks for d in needs)
        }
        checks["ms"] = round((time.perf_counter() - start) * 1000, 1)
        return Readiness(capabilities, checks)

    def _store_check(self) -> dict[str, Any]:
        try:
            self.store.list_collections()
            return {"ok": True}
        except StoreError as exc:
            if exc.detail:
                log.warning("readiness: store: %s (%s)", exc.one_line(), exc.detail)
            return {"ok": False, "error": exc.for_http()}

    def _checkpoint_check(self) -> dict[str, Any]:
        saver = self.engine.checkpointer
        assert saver is not None
        try:
            with deadline_scope(time.monotonic() + READY_CHECK_S):
                saver.get_tuple({"configurable": {"thread_id": "__readyz__", "checkpoint_ns": ""}})
        except Exception as exc:  # any driver error means "not ready", never a 500
            # The probe is unauthenticated: the driver's text (hosts, paths) stays in the log.
            log.warning("readiness: checkpoint store: %s", describe(exc, 500))
            return {"ok": False, "error": "the checkpoint store cannot be read (the server log has the details)"}
        # A pooled read is not what a turn needs: each turn's lock opens a connection of its own
        # (``selfrag.locking.AdvisoryLocks``), which a Postgres with its pooled connections still
        # answering may refuse (max_connections full) or never accept (its postmaster frozen: this
        # probe then outlives READY_CHECK_S and ``readiness`` reports it down).
        return _lock_check(self.engine.turn_locks.probe, "turn", "the checkpoint store")

    def _collection_lock_check(self) -> dict[str, Any]:
        # Each collection write (an ingest, creating or deleting a collection) holds the collection's
        # lock on a Postgres connection of its own (``selfrag.service.locks``), as a turn does.
        return _lock_check(self.locks.probe, "collection write", "the shared Postgres")

    def _graph_check(self) -> dict[str, Any]:
        graphs = self.engine.components.graphs
        assert graphs is not None
        if not graphs.opened and not self.settings.graph.url:
            # The embedded server starts with the first question over a linked collection.
            return {"ok": True, "embedded": True, "started": False}
        try:
            graphs.ping()
            return {"ok": True}
        except SelfRagError as exc:
            if exc.detail:
                log.warning("readiness: graph: %s (%s)", exc.one_line(), exc.detail)
            return {"ok": False, "error": exc.for_http()}

    def _model_check(self) -> dict[str, Any]:
        llm = self.settings.llm
        return profile_named(llm.provider).ready(llm, READY_CHECK_S)

    def _embeddings_check(self) -> dict[str, Any]:
        emb = self.settings.embeddings
        probe = profile_named(emb.provider).embeddings_ready
        return {"ok": True} if probe is None else probe(emb, READY_CHECK_S)

    async def off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking ingest work (reading files, extraction, embedding, Chroma writes) on the
        ingest workers, with this request's context (its request id, for the logs)."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self.ingests, functools.partial(context.run, fn, *args))

    def close(self) -> None:
        self.engine.close()  # its graph store and rerank client
        self.slots.shutdown()
        self.ingests.shutdown(wait=False, cancel_futures=True)
        self._probes.shutdown(wait=False, cancel_futures=True)
        self.graph_loads.shutdown(wait=False, cancel_futures=True)


def _lock_check(probe: Callable[[float], None], writer: str, where: str) -> dict[str, Any]:
    """Readiness of locks that each open a connection of their own (``KeyedLocks.probe``): whether
    one could be taken now, within ``READY_CHECK_S``. The driver's text stays in the log."""
    try:
        probe(READY_CHECK_S)
    except StoreError as exc:
        log.warning("readiness: %s locks: %s (%s)", writer, exc.one_line(), exc.detail)
        return {"ok": False, "error": f"no new connection to {where} can be opened, and each {writer}'s lock "
                                      "needs one (the server log has the details)"}
    return {"ok": True}
