"""Running the (synchronous) engine from async request handlers, within limits.

- ``RunSlots`` bounds the questions answered at once, with a bounded wait queue: a request that
  finds every slot taken and the queue full, or waits longer than the queue timeout, gets 429.
- ``Run`` drives ``engine.stream`` in a worker thread and hands its events to the event loop.
  The run stops at the next node boundary when it is cancelled (client gone, deadline passed):
  LangGraph checkpoints between nodes, so stopping there never leaves a thread half-written.
- The worker owns the slot and frees it when it actually stops, so a run abandoned by its
  client (a 504, a disconnect) still counts against the limit until it is really done: the limit
  bounds the CPU and model work in flight, not the open connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from selfrag.deadline import deadline_scope
from selfrag.errors import DeadlineExceeded, Overloaded

__all__ = ["Run", "RunSlots"]


class RunSlots:
    """At most ``running`` runs at once; at most ``queued`` more waiting, each up to ``queue_timeout`` s;
    and, when ``per_tenant`` is set, at most that many running or waiting for any one tenant, so one
    busy tenant cannot take every slot from the others."""

    def __init__(self, running: int, queued: int, queue_timeout: float, per_tenant: int | None = None) -> None:
        self.running_limit = running
        self.queued_limit = queued
        self.queue_timeout = queue_timeout
        self.per_tenant = per_tenant
        self._sem = asyncio.Semaphore(running)
        self._waiting = 0
        self._busy = 0
        self._tenants: dict[str, int] = {}
        self.executor = ThreadPoolExecutor(max_workers=running, thread_name_prefix="selfrag-run")

    @property
    def busy(self) -> int:
        return self._busy

    @property
    def waiting(self) -> int:
        return self._waiting

    async def acquire(self, deadline: float, tenant: str = "") -> None:
        """Take a slot for ``tenant``, waiting in the queue if need be.

        Raises:
            Overloaded: the tenant is at its limit, the queue is full, or no slot freed within
                the queue timeout.
            DeadlineExceeded: the request's deadline passed while it waited.
        """
        held = self._tenants.get(tenant, 0)
        if self.per_tenant is not None and held >= self.per_tenant:
            raise Overloaded(f"this tenant already has {held} questions running or queued (the limit); retry later")
        self._tenants[tenant] = held + 1
        try:
            await self._acquire(deadline)
        except BaseException:
            self._forget(tenant)
            raise

    async def _acquire(self, deadline: float) -> None:
        if self._sem.locked():
            if self._waiting >= self.queued_limit:
                raise Overloaded(f"all {self.running_limit} run slots are busy and the wait queue is full; retry later")
            remaining = deadline - time.monotonic()
            wait = min(self.queue_timeout, remaining)
            self._waiting += 1
            try:
                await asyncio.wait_for(self._sem.acquire(), timeout=max(wait, 0.0))
            except TimeoutError:
                if remaining <= self.queue_timeout:
                    raise DeadlineExceeded("the request's deadline passed while it waited for a run slot") from None
                raise Overloaded(
                    f"no run slot became free within {self.queue_timeout:g} s; retry later"
                ) from None
            finally:
                self._waiting -= 1
        else:
            await self._sem.acquire()
        self._busy += 1

    def release(self, tenant: str = "") -> None:
        """Give a slot back (on the event loop's thread)."""
        self._busy -= 1
        self._forget(tenant)
        self._sem.release()

    def _forget(self, tenant: str) -> None:
        left = self._tenants.get(tenant, 0) - 1
        if left > 0:
            self._tenants[tenant] = left
        else:
            self._tenants.pop(tenant, None)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


class Run:
    """One engine run in a worker thread, its events readable with ``events()``.

    ``source`` is a callable returning the engine's event iterator; it is called in the worker,
    so even the engine's own up-front checks run off the event loop.
    """

    def __init__(self, source: Callable[[], Iterator[Any]], *, slots: RunSlots, deadline: float, tenant: str = "") -> None:
        self._source = source
        self._slots = slots
        self._tenant = tenant
        self._deadline = deadline
        self._cancel = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._ahead: tuple[str, Any] | None = None
        self._loop.run_in_executor(slots.executor, self._work)

    def cancel(self) -> None:
        """Ask the run to stop at the next node boundary."""
        self._cancel.set()

    async def peek(self) -> Any:
        """The run's first event, read ahead: ``events()`` still yields it first. None when the run
        failed or ended before any (``events()`` then raises or ends, as it would have)."""
        if self._ahead is None:
            self._ahead = await self._next()
        kind, payload = self._ahead
        return payload if kind == "event" else None

    async def events(self) -> AsyncIterator[Any]:
        """The run's events as they come.

        Raises:
            DeadlineExceeded: the deadline passed first (the run is cancelled).
            Whatever the engine raised.
        """
        try:
            while True:
                if self._ahead is not None:
                    (kind, payload), self._ahead = self._ahead, None
                else:
                    kind, payload = await self._next()
                if kind == "event":
                    yield payload
                elif kind == "error":
                    raise payload
                else:
                    return
        finally:
            self.cancel()  # the consumer left (finished, failed, disconnected): stop the worker too

    async def _next(self) -> tuple[str, Any]:
        """The worker's next message, or the deadline's error when it passes first."""
        try:
            return await asyncio.wait_for(self._queue.get(), timeout=max(self._deadline - time.monotonic(), 0.0))
        except TimeoutError:
            return "error", DeadlineExceeded("the run did not finish within the request's deadline; it was stopped")

    # -- the worker thread -------------------------------------------------------------------------
    def _work(self) -> None:
        # Calls inside the run (a reranker, a model client) see the request's deadline, so none
        # outlives it by blocking between two node boundaries.
        with deadline_scope(self._deadline):
            self._run_to_end()

    def _run_to_end(self) -> None:
        try:
            events = self._source()
            try:
                for event in events:
                    self._post("event", event)
                    if self._cancel.is_set() or time.monotonic() > self._deadline:
                        break  # closing the generator stops the graph before its next node
            finally:
                close = getattr(events, "close", None)
                if callable(close):
                    close()
        except BaseException as exc:  # handed to the consumer, who decides the response
            self._post("error", exc)
        finally:
            self._post("done", None)
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server is shutting down
                self._loop.call_soon_threadsafe(self._slots.release, self._tenant)

    def _post(self, kind: str, payload: Any) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (kind, payload))
