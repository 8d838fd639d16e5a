"""Against a real Chroma server (``chroma run`` on loopback): the schema travels with the collection."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfrag.errors import InvalidFilter, StoreError
from selfrag.samples import ingest_sample, load_sample
from selfrag.settings import Settings, StoreSettings
from selfrag.store import Store
from selfrag.testing import HashEmbeddings
from tests.servers import ServerProcess, free_port

pytestmark = pytest.mark.integration

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture
def chroma(tmp_path: Path) -> Iterator[ServerProcess]:
    """A real ``chroma run`` on a free loopback port."""
    if not CHROMA.exists():
        pytest.skip("the chroma CLI is not installed in this environment")
    port = free_port()
    cmd = [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)]
    proc = ServerProcess.start("chroma", cmd, tmp_path / "chroma.log", f"http://127.0.0.1:{port}")
    try:
        proc.wait_until_up("/api/v2/heartbeat", timeout_s=30)
        yield proc
    finally:
        proc.stop()


def test_sample_round_trips_through_a_server(chroma: ServerProcess) -> None:
    settings = Settings(store=StoreSettings(chroma_url=chroma.url))
    with Store.from_settings(settings, HashEmbeddings()) as store:
        report = ingest_sample(store, "filings")
        assert ingest_sample(store, "filings").added == () and report.embedded == report.chunks
    with Store.from_settings(settings, HashEmbeddings()) as store:  # a new client sees what the first stored
        filings = store.get_collection("filings")
        assert filings.schema == load_sample("filings")[0]
        assert filings.known_values("company") == ["Apple", "Costco", "Microsoft", "Walmart"]
        assert filings.count() == report.chunks
        hits = filings.search("membership fees", where={"company": "Costco"}, k=3)
        assert hits and all(h.metadata["company"] == "Costco" for h in hits)
        with pytest.raises(InvalidFilter):
            filings.search("x", where={"$bad": 1}, k=1)
        store.delete_collection("filings")
        assert store.list_collections() == []


def wait_until_stopped(pid: int, timeout_s: float = 10.0) -> None:
    """Until every thread of ``pid`` is stopped: SIGSTOP takes effect on each thread as it is next
    scheduled, and a request sent at once was seen answered before the server had stopped."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        states = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                states.append((task / "stat").read_text().rsplit(")", 1)[1].split()[0])
            except OSError:  # a thread that just ended
                continue
        if states and all(s in ("T", "t") for s in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop")


# Chroma's own HTTP client never times out (httpx timeout=None): only store.timeout_s ends the wait.
# So reaching the StoreError at all proves the setting is applied; the marker turns the hang it
# would otherwise be into a failure. No duration is asserted: this machine's speed is not the contract.
@pytest.mark.timeout(120)
def test_a_hung_server_is_a_store_error_not_a_hang(chroma: ServerProcess) -> None:
    settings = Settings(store=StoreSettings(chroma_url=chroma.url, timeout_s=0.5))
    with Store.from_settings(settings, HashEmbeddings()) as store:
        os.kill(chroma.process.pid, signal.SIGSTOP)  # the server hangs: accepts, never answers
        try:
            wait_until_stopped(chroma.process.pid)
            with pytest.raises(StoreError, match="cannot list collections"):
                store.list_collections()
        finally:
            os.kill(chroma.process.pid, signal.SIGCONT)
