"""Thread memory after a Postgres outage (issue 25 item 3): once Postgres is back, the next thread
request succeeds within seconds, whatever the outage's length; during the outage, a request fails
fast with ``store_unavailable`` instead of waiting out the pool's checkout timeout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from selfrag.errors import StoreError
from selfrag.settings import Settings
from tests.pg import LocalPostgres, start_postgres
from workflows.checkpoints import checkpoint_errors
from workflows.factory import close_checkpointer, open_checkpointer

pytestmark = pytest.mark.integration

CONFIG: Any = {"configurable": {"thread_id": "t-1", "checkpoint_ns": ""}}


@pytest.fixture(scope="module")
def restartable() -> Iterator[LocalPostgres]:
    server = start_postgres(durable=True)
    yield server
    server.stop()


def _read(saver: Any) -> None:
    with checkpoint_errors("reading a thread"):
        saver.get_tuple(CONFIG)


def test_requests_succeed_within_seconds_of_postgres_returning(restartable: LocalPostgres, tmp_path: Path) -> None:
    saver = open_checkpointer(Settings(home=tmp_path, checkpoints={"url": restartable.url, "pool_size": 2}))
    try:
        _read(saver)
        restartable.process.send_signal(__import__("signal").SIGQUIT)
        restartable.process.wait(timeout=15)
        # A 25 s outage with requests arriving all along: each must fail, and fail fast.
        down_until = time.monotonic() + 25
        while time.monotonic() < down_until:
            start = time.monotonic()
            with pytest.raises(StoreError):
                _read(saver)
            assert time.monotonic() - start < 3.5, "a request waited out the pool during the outage"
            time.sleep(0.5)
        restartable.restart()  # already stopped: restart() only starts it again
        back = time.monotonic()
        while True:
            try:
                _read(saver)
                break
            except StoreError:
                assert time.monotonic() - back < 5.0, "still failing 5 s after Postgres came back"
                time.sleep(0.1)
    finally:
        close_checkpointer(saver)
