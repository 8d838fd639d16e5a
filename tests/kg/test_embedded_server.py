"""The embedded FalkorDB server: started on first use, reused, stopped by the last user, and
never left in a stale state by a killed user or a killed server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selfrag.errors import GraphUnavailable
from selfrag.kg import EmbeddedGraphServer, NodeRecord, open_graph_store
from selfrag.kg.server import MAX_SOCKET_PATH, connect

ROOT = Path(__file__).resolve().parents[2]


def _pid(directory: Path) -> int:
    return int((directory / "falkordb.pid").read_text())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # Our own child that exited is a zombie until reaped: that is gone too.
    return not Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")


def _state_files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()} & {"server.json", "falkordb.pid", "falkordb.sock", "server.conf"}


def test_start_reuse_and_stop_by_the_last_user(tmp_path: Path) -> None:
    directory = tmp_path / "graph"
    first, second = EmbeddedGraphServer(directory), EmbeddedGraphServer(directory)
    address = first.acquire()
    assert first.started and address.unix_socket == str(directory / "falkordb.sock")
    pid = _pid(directory)
    assert second.acquire() == address and not second.started and _pid(directory) == pid

    assert first.release() is False  # the second still uses it
    assert _alive(pid)
    connect(address).connection.ping()
    assert second.release() is True
    assert not _alive(pid)
    assert _state_files(directory) == set()
    assert second.release() is False  # releasing twice is harmless


def test_data_survives_a_stop_and_a_restart(tmp_path: Path) -> None:
    with open_graph_store(tmp_path) as store:
        store.load("g", [NodeRecord(id="a", label="Organization", name="Acme")], [])
    assert _state_files(tmp_path / "graph") == set()  # stopped
    with open_graph_store(tmp_path) as store:
        assert [e.name for e in store.entities("g")] == ["Acme"]


def test_a_killed_user_leaves_nothing_stale(tmp_path: Path) -> None:
    directory = tmp_path / "graph"
    script = (
        "import sys, time; from pathlib import Path; from selfrag.kg.server import EmbeddedGraphServer as E; "
        "E(Path(sys.argv[1])).acquire(); print('up', flush=True); time.sleep(600)"
    )
    user = subprocess.Popen([sys.executable, "-c", script, str(directory)], cwd=ROOT, stdout=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    try:
        assert user.stdout is not None and user.stdout.readline().strip() == b"up"
        pid = _pid(directory)
    finally:
        user.kill()  # SIGKILL: no cleanup of any kind runs
        user.wait()
        assert user.stdout is not None
        user.stdout.close()
    assert _alive(pid)  # the server outlives its killed starter...
    nxt = EmbeddedGraphServer(directory)
    nxt.acquire()
    assert not nxt.started and _pid(directory) == pid  # ...is adopted by the next process...
    assert nxt.release() is True  # ...whose leaving stops it: the killed user held no lock any more
    assert not _alive(pid) and _state_files(directory) == set()


def test_a_killed_server_is_replaced(tmp_path: Path) -> None:
    directory = tmp_path / "graph"
    holder = EmbeddedGraphServer(directory)
    holder.acquire()
    old = _pid(directory)
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(old) and time.monotonic() < deadline:
        time.sleep(0.01)
    fresh = EmbeddedGraphServer(directory)
    address = fresh.acquire()
    assert fresh.started and _pid(directory) != old
    connect(address).connection.ping()
    assert holder.release() is False
    assert fresh.release() is True
    assert _state_files(directory) == set()


def test_a_socket_path_over_the_limit_falls_back_to_a_loopback_port(tmp_path: Path) -> None:
    directory = tmp_path / ("d" * (MAX_SOCKET_PATH - len(str(tmp_path)))) / "graph"
    server = EmbeddedGraphServer(directory)
    address = server.acquire()
    try:
        assert address.unix_socket is None and address.host == "127.0.0.1" and address.port
        connect(address).connection.ping()
    finally:
        assert server.release() is True


def test_an_unusable_data_directory_is_graph_unavailable(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(GraphUnavailable) as info:
        open_graph_store(tmp_path / "file")
    assert "data directory is not writable" in info.value.message and str(tmp_path) not in info.value.message


def test_the_server_wants_its_password_and_keeps_it_private(tmp_path: Path) -> None:
    import redis

    directory = tmp_path / "graph"
    server = EmbeddedGraphServer(directory)
    address = server.acquire()
    try:
        assert address.password and address.password not in repr(address)
        for name in ("server.json", "server.conf"):
            assert (directory / name).stat().st_mode & 0o077 == 0
        stranger = redis.Redis(unix_socket_path=address.unix_socket)
        with pytest.raises(redis.exceptions.AuthenticationError):
            stranger.ping()
        stranger.close()
        assert address.password not in Path(f"/proc/{_pid(directory)}/cmdline").read_text()
    finally:
        server.release()


def test_processes_starting_at_once_share_one_server_and_the_last_stops_it(tmp_path: Path) -> None:
    directory = tmp_path / "graph"
    script = (
        "import sys, time; from pathlib import Path; from selfrag.kg.server import EmbeddedGraphServer as E; "
        "d = Path(sys.argv[1]); s = E(d); s.acquire(); print((d / 'falkordb.pid').read_text().strip(), flush=True); "
        "sys.stdin.readline(); print(s.release(), flush=True)"
    )
    users = [subprocess.Popen([sys.executable, "-c", script, str(directory)], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        pids = {u.stdout.readline().strip() for u in users if u.stdout is not None}
        assert len(pids) == 1  # one server, whoever came first started it
        outs = []
        for u in users:  # leave one after the other: only the last one out stops it
            out, _ = u.communicate("\n", timeout=60)
            outs.append(out.strip())
        assert outs == ["False", "False", "True"]
        assert not _alive(int(pids.pop())) and _state_files(directory) == set()
    finally:
        for u in users:
            if u.poll() is None:
                u.kill()
                u.wait()
