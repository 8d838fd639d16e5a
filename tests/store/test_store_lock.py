"""The embedded store's lock: one writing process, readers share, a crash never leaves it behind.

Other processes are real (a Python child holding the lock); within one process the lock is
re-entrant, because tests and the evaluation harness open one store several times.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from selfrag.errors import StoreError, StoreLocked
from selfrag.settings import Settings
from selfrag.store import Store, StoreUse, lock_store
from selfrag.testing import HashEmbeddings

HOLD = """
import sys, time
from pathlib import Path
from selfrag.store import StoreUse, lock_store
lock_store(Path(sys.argv[1]), StoreUse("selfrag serve", write=sys.argv[2] == "write", url="http://127.0.0.1:8123"))
print("held", flush=True)
time.sleep(600)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Callable[[str], subprocess.Popen[str]]]:
    """Start another process that takes the lock of ``tmp_path/chroma`` (``read`` or ``write``) and keeps it."""
    started: list[subprocess.Popen[str]] = []

    def start(mode: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(tmp_path / "chroma"), mode], stdout=subprocess.PIPE, text=True
        )
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_a_writer_elsewhere_refuses_everyone_and_names_its_api(
    tmp_path: Path, holder: Callable[[str], subprocess.Popen[str]]
) -> None:
    proc = holder("write")
    ingest = StoreUse("selfrag ingest", api="POST /v1/collections/movies/documents")
    with pytest.raises(StoreLocked) as refused:
        lock_store(tmp_path / "chroma", ingest)
    message = refused.value.one_line()
    assert f"in use by selfrag serve (pid {proc.pid}) at http://127.0.0.1:8123" in message
    assert "POST http://127.0.0.1:8123/v1/collections/movies/documents" in message
    assert "store.chroma_url" in message
    with pytest.raises(StoreLocked, match=r"POST http://127\.0\.0\.1:8123/v1/answers"):
        lock_store(tmp_path / "chroma", StoreUse("selfrag ask", write=False, api="POST /v1/answers"))


def test_readers_share_and_keep_writers_out(tmp_path: Path, holder: Callable[[str], subprocess.Popen[str]]) -> None:
    holder("read")
    mine = lock_store(tmp_path / "chroma", StoreUse("selfrag plan", write=False))
    with pytest.raises(StoreLocked, match="open for reading by another selfrag process"):
        lock_store(tmp_path / "chroma", StoreUse("selfrag ingest"))
    mine.release()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path, holder: Callable[[str], subprocess.Popen[str]]) -> None:
    proc = holder("write")
    with pytest.raises(StoreLocked):
        lock_store(tmp_path / "chroma", StoreUse())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lock_store(tmp_path / "chroma", StoreUse("selfrag ingest")).release()


def test_in_one_process_the_lock_is_reentrant_and_upgrades(
    tmp_path: Path, holder: Callable[[str], subprocess.Popen[str]]
) -> None:
    folder = tmp_path / "chroma"
    reader = lock_store(folder, StoreUse(write=False))
    writer = lock_store(folder, StoreUse())  # this process's reader does not block its own writer
    second = lock_store(folder, StoreUse())
    second.release()
    second.release()  # twice is harmless
    writer.release()
    holder("read")  # the writers are gone: our remaining reader shares with another process's
    reader.release()


def test_a_store_holds_the_lock_until_closed(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    store = Store.from_settings(settings, HashEmbeddings(), use=StoreUse("selfrag ingest"))
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; from selfrag.store import StoreUse, lock_store; "
         "lock_store(Path(sys.argv[1]), StoreUse(write=False))", str(settings.chroma_path)],
        capture_output=True, text=True,
    )
    assert probe.returncode != 0 and "StoreLocked" in probe.stderr and "in use by selfrag ingest" in probe.stderr
    store.close()
    again = subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; from selfrag.store import StoreUse, lock_store; "
         "lock_store(Path(sys.argv[1]), StoreUse(write=False))", str(settings.chroma_path)],
        capture_output=True, text=True,
    )
    assert again.returncode == 0, again.stderr


def test_a_chroma_server_needs_no_lock(tmp_path: Path) -> None:
    # No server is contacted here: only that the embedded lock is not taken for a server URL.
    settings = Settings(home=tmp_path, store={"chroma_url": "http://127.0.0.1:1"})
    with pytest.raises(StoreError, match="cannot connect to Chroma"):
        Store.from_settings(settings, HashEmbeddings())
    assert not (tmp_path / "chroma.lock").exists()
