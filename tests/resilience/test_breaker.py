"""The circuit breaker: a dead endpoint fails fast, one probe after the pause, closed on success."""

from __future__ import annotations

import threading

import pytest

from selfrag.breaker import BreakerOpen, BreakerPolicy, BreakerState, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_it_opens_after_consecutive_failures_and_refuses_at_once() -> None:
    clock = Clock()
    breaker = CircuitBreaker("model", BreakerPolicy(failures=3, reset_s=2.0), clock=clock)
    for _ in range(2):
        breaker.before()
        breaker.failure()
    assert breaker.state is BreakerState.CLOSED
    breaker.before()
    breaker.failure()
    assert breaker.state is BreakerState.OPEN
    with pytest.raises(BreakerOpen) as refused:
        breaker.before()
    assert refused.value.retry_in_s == pytest.approx(2.0)


def test_a_success_resets_the_count() -> None:
    breaker = CircuitBreaker("model", BreakerPolicy(failures=2), clock=Clock())
    breaker.failure()
    breaker.success()
    breaker.failure()
    assert breaker.state is BreakerState.CLOSED


def test_after_the_pause_one_probe_goes_through_and_its_result_decides() -> None:
    clock = Clock()
    breaker = CircuitBreaker("model", BreakerPolicy(failures=1, reset_s=2.0), clock=clock)
    breaker.failure()
    clock.now += 2.0
    assert breaker.state is BreakerState.HALF_OPEN
    breaker.before()  # the probe
    with pytest.raises(BreakerOpen):
        breaker.before()  # a second caller while the probe is out
    breaker.failure()  # the probe failed: open again for a full pause
    with pytest.raises(BreakerOpen):
        breaker.before()
    clock.now += 2.0
    breaker.before()
    breaker.success()
    assert breaker.state is BreakerState.CLOSED
    breaker.before()


def test_it_is_thread_safe() -> None:
    breaker = CircuitBreaker("model", BreakerPolicy(failures=800), clock=Clock())
    threads = [threading.Thread(target=lambda: [breaker.failure() for _ in range(100)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert breaker.state is BreakerState.OPEN  # exactly 800 failures counted: one lost update keeps it closed
