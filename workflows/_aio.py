"""The engine's synchronous generators, driven from async code one step at a time in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

from langchain_core.runnables.config import run_in_executor

__all__ = ["in_thread"]

T = TypeVar("T")
_DONE: Any = object()


async def in_thread(steps: Iterator[T]) -> AsyncIterator[T]:
    """``steps``' items, each ``next`` run in a worker thread with this context (callbacks,
    tracing, the request id) copied into it, so the event loop never blocks on a node.

    Leaving early (a ``break``, a cancelled task) closes ``steps`` once its current step is done:
    a generator cannot be closed while it runs, and the engine stops between nodes anyway.
    """
    pending: asyncio.Future[Any] | None = None
    try:
        while True:
            pending = asyncio.ensure_future(run_in_executor(None, next, steps, _DONE))
            item = await pending
            if item is _DONE:
                return
            yield item
    finally:
        if pending is not None and not pending.done():
            with contextlib.suppress(BaseException):
                await asyncio.shield(pending)
        close = getattr(steps, "close", None)
        if callable(close):
            await asyncio.shield(run_in_executor(None, close))
