"""Choosing the checkpoint store from the settings, and the errors a wrong choice gives.

The Postgres these tests name is never running (a free port): the real server's tests are in
``test_postgres_checkpoints.py``.
"""

from __future__ import annotations

import multiprocessing
import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from selfrag.errors import ConfigError, StoreError
from selfrag.settings import Settings, load_settings
from workflows.factory import close_checkpointer, open_checkpointer

PASSWORD = "s3cret-pw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_sqlite_is_the_default_and_close_checkpointer_closes_it(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home")
    assert settings.checkpoints.url is None
    saver = open_checkpointer(settings)
    assert isinstance(saver, SqliteSaver)
    assert settings.checkpoint_path.is_file()
    saver.delete_thread("nobody")  # the tables exist
    close_checkpointer(saver)
    with pytest.raises(sqlite3.ProgrammingError):
        saver.conn.execute("SELECT 1")
    close_checkpointer(saver)  # twice is fine


def test_close_checkpointer_leaves_savers_without_resources_alone() -> None:
    close_checkpointer(InMemorySaver())


@pytest.mark.parametrize("url", [f"mysql://selfrag:{PASSWORD}@127.0.0.1/db", "sqlite:///tmp/x.sqlite", "127.0.0.1:5432"])
def test_a_url_that_is_not_postgres_is_a_config_error(tmp_path: Path, url: str) -> None:
    with pytest.raises(ConfigError) as info:
        open_checkpointer(Settings(home=tmp_path, checkpoints={"url": url}))
    assert info.value.code == "config_invalid"
    assert "postgresql://" in info.value.message and "\n" not in info.value.message
    assert PASSWORD not in info.value.message


def test_a_malformed_postgres_url_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        open_checkpointer(Settings(home=tmp_path, checkpoints={"url": f"postgresql://u:{PASSWORD}@127.0.0.1:notaport/db"}))
    assert PASSWORD not in info.value.message


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_an_unreachable_postgres_is_a_store_error_naming_host_and_port_not_the_password(tmp_path: Path, scheme: str) -> None:
    port = free_port()
    url = f"{scheme}://selfrag:{PASSWORD}@127.0.0.1:{port}/checkpoints"
    with pytest.raises(StoreError) as info:
        open_checkpointer(Settings(home=tmp_path, checkpoints={"url": url}))
    message = info.value.message
    assert info.value.code == "store_unavailable"
    assert f"127.0.0.1:{port}" in message
    assert PASSWORD not in message and PASSWORD not in repr(info.value.__cause__ or "")
    assert "\n" not in message
    assert not (tmp_path / "checkpoints.sqlite").exists()  # no silent fallback to SQLite


def test_the_url_comes_from_the_environment_and_stays_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFRAG_CHECKPOINTS__URL", f"postgresql://u:{PASSWORD}@db:5432/selfrag")
    monkeypatch.setenv("SELFRAG_CHECKPOINTS__POOL_SIZE", "20")
    settings = load_settings()
    assert settings.checkpoints.url == f"postgresql://u:{PASSWORD}@db:5432/selfrag"
    assert settings.checkpoints.pool_size == 20
    assert PASSWORD not in repr(settings)


@pytest.mark.parametrize("size", ["0", "101"])
def test_pool_size_is_bounded(monkeypatch: pytest.MonkeyPatch, size: str) -> None:
    monkeypatch.setenv("SELFRAG_CHECKPOINTS__POOL_SIZE", size)
    with pytest.raises(ConfigError, match="checkpoints.pool_size"):
        load_settings()


def _open_and_close(home: str, barrier: Any, results: Any) -> None:
    settings = Settings(home=Path(home))
    barrier.wait()
    try:
        close_checkpointer(open_checkpointer(settings))
        results.put("ok")
    except Exception as exc:  # noqa: BLE001 - the test reports what a process met
        results.put(repr(exc))


def test_processes_opening_a_new_checkpoint_file_at_once_all_open_it(tmp_path: Path) -> None:
    # Bug: two `selfrag ask --thread` processes starting on a fresh home raced to create the
    # SQLite file's tables and switch it to WAL; SQLite refused the loser at once ("database is
    # locked", no busy wait), so its turn ended as an internal error. Seen in CI's turn test.
    ctx = multiprocessing.get_context("fork")
    for trial in range(12):
        barrier, results = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_open_and_close, args=(str(tmp_path / f"home{trial}"), barrier, results))
                 for _ in range(4)]
        for p in procs:
            p.start()
        got = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert got == ["ok"] * 4, got


def test_a_checkpoint_file_locked_for_too_long_is_a_store_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import workflows.checkpoints as checkpoints

    monkeypatch.setattr(checkpoints, "SQLITE_SETUP_WAIT_S", 0.2)

    def locked(self: SqliteSaver) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(SqliteSaver, "setup", locked)
    with pytest.raises(StoreError) as caught:
        open_checkpointer(Settings(home=tmp_path))
    assert caught.value.code == "store_unavailable" and "locked" not in str(caught.value)
