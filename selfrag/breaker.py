"""A circuit breaker per dependency and model endpoint: a dead server fails fast.

Without one, every call of a run against a dead model server pays its own connect timeout and
retries (17 calls and 13-27 s per question were measured), and every queued question does the
same. After ``failures`` transport failures in a row the breaker *opens*: calls are refused at
once with ``BreakerOpen`` (which ``selfrag.retry`` never retries) until ``reset_s`` has passed.
Then one probe call is let through (*half-open*): its success closes the breaker, its failure
opens it for another ``reset_s``. ``reset_s`` is short (2 s) so that a server that comes back is
used again within seconds, whatever the length of the outage.

Breakers are shared per endpoint within a process (``breaker_for``): the graders, the generator
and the planner talk to one model server, and what one of them learns spares the others. Only
transport failures count (``selfrag.outages``): a model's invalid output says nothing about
whether its server is up.

``pybreaker`` was considered; it keeps state through storage back-ends and listeners this needs
none of, and its half-open state lets every concurrent caller through rather than one probe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

__all__ = ["BreakerOpen", "BreakerPolicy", "BreakerState", "CircuitBreaker", "breaker_for", "reset_breakers"]


class BreakerPolicy(NamedTuple):
    """When a breaker opens and how long it stays open."""

    failures: int = 3
    """Transport failures in a row that open it."""
    reset_s: float = 2.0
    """How long it refuses calls before letting one probe through."""


DEFAULT_POLICY = BreakerPolicy()


class BreakerState(StrEnum):
    CLOSED = "closed"
    """Calls go through."""
    OPEN = "open"
    """Calls are refused until ``reset_s`` has passed."""
    HALF_OPEN = "half_open"
    """One probe call is out; the others are refused until it reports."""


class BreakerOpen(Exception):  # noqa: N818 - the name says what happened, as httpx's ConnectError does
    """A call refused without being made: its endpoint failed repeatedly just now.

    Not a ``SelfRagError``: it is raised below the client libraries (an httpx transport), which
    wrap it; ``selfrag.outages`` recognises it anywhere in an exception's chain.
    """

    def __init__(self, name: str, retry_in_s: float) -> None:
        super().__init__(f"circuit open for {name}: failing fast for {retry_in_s:.1f} s more")
        self.name = name
        self.retry_in_s = retry_in_s


class CircuitBreaker:
    """A thread-safe circuit breaker (see the module docstring). ``clock`` is injectable for tests."""

    def __init__(self, name: str, policy: BreakerPolicy = DEFAULT_POLICY, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.policy = policy
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._opened_at = 0.0

    @property
    def state(self) -> BreakerState:
        with self._lock:
            if self._state is BreakerState.OPEN and self._clock() - self._opened_at >= self.policy.reset_s:
                return BreakerState.HALF_OPEN  # the next call will be the probe
            return self._state

    def before(self) -> None:
        """Call before each attempt.

        Raises:
            BreakerOpen: the breaker is open, or half-open with its probe still out.
        """
        with self._lock:
            if self._state is BreakerState.CLOSED:
                return
            waited = self._clock() - self._opened_at
            if self._state is BreakerState.OPEN and waited >= self.policy.reset_s:
                self._state = BreakerState.HALF_OPEN  # this caller is the probe
                return
            raise BreakerOpen(self.name, max(self.policy.reset_s - waited, 0.0))

    def success(self) -> None:
        """The attempt reached its server (whatever the server answered)."""
        with self._lock:
            self._state = BreakerState.CLOSED
            self._failures = 0

    def failure(self) -> None:
        """The attempt failed for a transport reason."""
        with self._lock:
            self._failures += 1
            if self._state is BreakerState.HALF_OPEN or self._failures >= self.policy.failures:
                self._state = BreakerState.OPEN
                self._opened_at = self._clock()


_registry: dict[str, CircuitBreaker] = {}
_registry_lock = threading.Lock()


def breaker_for(name: str, policy: BreakerPolicy = DEFAULT_POLICY) -> CircuitBreaker:
    """The process's breaker for the endpoint ``name`` (e.g. ``model http://vllm:8000/v1``),
    made on first use. ``name`` is for the log only, never for a client: it may hold an address."""
    with _registry_lock:
        found = _registry.get(name)
        if found is None:
            found = _registry[name] = CircuitBreaker(name, policy)
        return found


def reset_breakers() -> None:
    """Forget every shared breaker (tests that restart a server on a reused port)."""
    with _registry_lock:
        _registry.clear()
