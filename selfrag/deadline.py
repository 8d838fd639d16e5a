"""The current request's deadline, visible to the code a run calls (rerankers, model clients).

The service stops a run at the next node boundary once its deadline has passed, but a node blocked
in one slow call would still outlive it. ``deadline_scope`` sets the deadline for the calls made
inside it (a ``ContextVar``, so each worker thread and task sees its own request's), and a client
with a timeout of its own takes ``budget(timeout)``: whichever ends first.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["budget", "current_deadline", "deadline_scope"]

_DEADLINE: ContextVar[float | None] = ContextVar("selfrag_deadline", default=None)


@contextmanager
def deadline_scope(deadline: float | None) -> Iterator[None]:
    """Calls inside the block end by ``deadline`` (a ``time.monotonic()`` value; None: no deadline).

    A nested scope can only shorten the deadline, never extend the one around it.
    """
    outer = _DEADLINE.get()
    effective = deadline if outer is None else (outer if deadline is None else min(outer, deadline))
    token = _DEADLINE.set(effective)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def current_deadline() -> float | None:
    """The deadline of the calls made here (``time.monotonic()`` based), or None."""
    return _DEADLINE.get()


def budget(timeout_s: float) -> float:
    """Seconds a call may take: its own ``timeout_s`` or what is left before the deadline, if less
    (never negative)."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout_s
    return max(0.0, min(timeout_s, deadline - time.monotonic()))
