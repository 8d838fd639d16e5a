"""An outage is an error, never an answer: recognising transport failures and ending the run on one.

Every stage of a run degrades gracefully when its model call fails: the planner falls back to
rules, the graders apply their fail-closed policy, the generator falls back to an extract. That
is right for a model that answered badly, and wrong for a model server (or Chroma, FalkorDB,
Postgres) that cannot be reached: a run that could not consult what it needed would answer
"no document was relevant" and store that turn. So a *transport* failure (connection refused or
reset, a timeout, a 5xx from a server, an open circuit breaker) ends the run as a
``DependencyUnavailable`` error:

- ``is_outage`` says whether an exception, or anything in its chain, is one.
- ``call_with_retries`` (``selfrag.retry``) calls ``report_outage`` when a model call's last attempt
  failed that way: a LangChain custom event that reaches the run's callbacks, however deep the
  call and in whichever worker thread, without every fallback having to know about outages.
- ``OutageWatch`` is the run's handler for that event; the engine checks it after every node
  and raises the recorded failure before the next one, so the turn is never finalised or stored.
- Layers that see a failure themselves (the graders' policy, the per-resource retrieval) raise at
  once with ``as_dependency_error``, chained to the cause so ``SELFRAG_DEBUG=1`` shows it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from selfrag.breaker import BreakerOpen
from selfrag.errors import DependencyUnavailable, ProviderError, describe

__all__ = ["OUTAGE_EVENT", "OutageWatch", "as_dependency_error", "is_outage", "report_outage"]

OUTAGE_EVENT = "selfrag_outage"
"""The LangChain custom event ``report_outage`` dispatches."""

_TRANSPORT_NAMES = frozenset({
    "APIConnectionError", "APITimeoutError", "InternalServerError", "ServiceUnavailableError",
    "TransportError",  # httpx: connect/read/write errors and timeouts
    "OperationalError",  # psycopg / sqlite: the server went away
    "PoolTimeout",  # psycopg_pool: no connection within the pool's timeout
})  # fmt: skip


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_outage(exc: BaseException) -> bool:
    """A transport failure of a dependency or a model server, anywhere in ``exc``'s chain.

    An invalid reply (schema, JSON), a 4xx (bad request, auth) and a local model's own failure are
    not outages: the server answered.
    """
    for link in _chain(exc):
        if isinstance(link, (ConnectionError, TimeoutError, BreakerOpen)):
            return True
        if any(cls.__name__ in _TRANSPORT_NAMES for cls in type(link).__mro__):
            return True
        if type(link).__module__.startswith("redis") and type(link).__name__ in ("ConnectionError", "TimeoutError"):
            return True
    return False


def as_dependency_error(exc: BaseException, dependency: str = "model") -> DependencyUnavailable:
    """``exc`` as the error that ends a run; raise it ``from exc``. One of ours passes through."""
    for link in _chain(exc):
        if isinstance(link, DependencyUnavailable):
            return link
    fast = any(isinstance(link, BreakerOpen) for link in _chain(exc))
    what = {"model": "the chat model", "embeddings": "the embedding model", "retriever": "a retriever"}.get(
        dependency, f"the {dependency.replace('_', ' ')}")
    message = f"{what} cannot be reached{' (it failed repeatedly just now)' if fast else ''}; try again later"
    if dependency in ("model", "embeddings"):
        return ProviderError(message, detail=describe(exc, 500), dependency=dependency)
    return DependencyUnavailable(message, detail=describe(exc, 500), dependency=dependency)


def report_outage(exc: BaseException, dependency: str = "model") -> None:
    """Tell the current run (if any) that a call failed for good for a transport reason."""
    from langchain_core.callbacks.manager import dispatch_custom_event

    # Outside a run (an evaluation calling a grader directly) there is no one to tell: RuntimeError.
    with contextlib.suppress(RuntimeError):
        dispatch_custom_event(OUTAGE_EVENT, {"error": exc, "dependency": dependency})


class OutageWatch(BaseCallbackHandler):
    """One run's record of its first outage (``report_outage``), for the engine to raise."""

    raise_error = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first: tuple[BaseException, str] | None = None

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        if name != OUTAGE_EVENT or not isinstance(data, dict) or not isinstance(data.get("error"), BaseException):
            return
        with self._lock:
            if self._first is None:
                self._first = (data["error"], str(data.get("dependency") or "model"))

    def raise_if_any(self) -> None:
        """Raise the run's first outage, chained to its cause.

        Raises:
            DependencyUnavailable: a call of this run failed for a transport reason.
        """
        with self._lock:
            first = self._first
        if first is not None:
            exc, dependency = first
            raise as_dependency_error(exc, dependency) from exc
