"""A throwaway PostgreSQL server on 127.0.0.1 for tests, from the binaries bundled in the pgserver wheel.

The wheel ships a relocatable PostgreSQL (``pgserver/pginstall``), so the suite needs no Debian
``postgresql`` package and no running service. We use its binaries but not its ``PostgresServer``
class: that one listens on a Unix socket only, keeps its data directory, and registers atexit
hooks and a lock file in the user's runtime dir. Here each server gets a fresh temp directory, a
free TCP port on 127.0.0.1 (the transport a real deployment uses), fsync off, and is stopped and
deleted at teardown.

PostgreSQL refuses to run as root. As pgserver does, we then run ``initdb`` and ``postgres`` as the
unprivileged system user ``pgserver`` (created with ``useradd`` if missing), through subprocess's
``user=``/``group=`` (no ``su``: no PAM, no shell quoting), with root's supplementary groups dropped.
Where that user cannot reach the bundled binaries (a venv under a private ``/root``), pgserver
widens the permissions of every parent directory; we copy the 34 MB install into the temp
directory instead, which leaves the machine as it was.

    server = start_postgres()                         # server.url: postgresql://postgres@127.0.0.1:PORT/selfrag
    try:
        url = create_database(server.url, "mine")     # postgresql://postgres@127.0.0.1:PORT/mine
    finally:
        server.stop()
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

__all__ = ["PG_USER", "LocalPostgres", "PostgresStartError", "create_database", "start_postgres"]

PG_USER = "pgserver"
"""The system user PostgreSQL runs as when the tests run as root (the name pgserver itself uses)."""

_SUPERUSER = "postgres"
_FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")


class PostgresStartError(RuntimeError):
    """The server could not be initialised or started; the message ends with its log's tail."""


@dataclass
class LocalPostgres:
    """A running server. ``url`` names its default database; ``stop()`` ends it and deletes its files."""

    url: str
    port: int
    root: Path
    process: subprocess.Popen[bytes]
    command: tuple[list[str], dict[str, Any], Path] | None = None
    """How it was started (the command, the run-as kwargs, the log), for ``restart``."""

    def database_url(self, name: str) -> str:
        return f"postgresql://{_SUPERUSER}@127.0.0.1:{self.port}/{name}"

    def restart(self, *, down_s: float = 0.0, timeout_s: float = 30.0) -> None:
        """Stop the server at once (``SIGQUIT``, an immediate shutdown: every session and its
        advisory locks gone, crash recovery at the next start, as after an outage), stay down
        ``down_s``, then start it again on the same port and data."""
        assert self.command is not None
        self.process.send_signal(signal.SIGQUIT)
        self.process.wait(timeout=15)
        time.sleep(down_s)
        cmd, run_as, log = self.command
        with log.open("ab") as out:
            self.process = subprocess.Popen(cmd, cwd=self.root, env=_env(self.root), stdout=out,
                                            stderr=subprocess.STDOUT, **run_as)
        if not _wait_ready(self, timeout_s):
            raise PostgresStartError(f"postgres did not come back\n{_tail(log)}")

    def stop(self) -> None:
        """Fast shutdown (clients are disconnected), then remove the data directory."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
                try:
                    self.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def start_postgres(database: str = "selfrag", *, timeout_s: float = 30.0, durable: bool = False) -> LocalPostgres:
    """Initialise a cluster in a new temp directory, start it on a free 127.0.0.1 port, create ``database``.

    ``durable``: keep PostgreSQL's own durability (fsync, synchronous commit) for a test that kills
    the server: with them off, a commit acknowledged just before an immediate shutdown may be gone
    after it, which no deployment runs with (a loaded machine made such a test lose its first turn).

    Raises:
        PostgresStartError: with the server log's tail, when any step fails.
    """
    root = Path(tempfile.mkdtemp(prefix="selfrag-pg-"))
    try:
        run_as = _run_as(root)
        bindir = _reachable_bindir(root, run_as)
        data, log = root / "data", root / "postgres.log"
        _run([str(bindir / "initdb"), "-D", str(data), "-U", _SUPERUSER, "--auth=trust", "--encoding=UTF8",
              "--locale=C", "--no-sync", "--no-instructions"], root, run_as, log)
        server = _start(bindir, data, root, run_as, log, timeout_s, durable)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        server.url = create_database(server.database_url("postgres"), database)
    except psycopg.Error as exc:
        server.stop()
        raise PostgresStartError(f"cannot create database {database!r}: {exc}") from exc
    return server


def create_database(url: str, name: str) -> str:
    """Create database ``name`` on the server of ``url``; return ``url`` pointed at it.

    A test that needs a clean slate (no tables, no threads) takes its own database this way.
    """
    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return urlunsplit(parts._replace(path=f"/{name}"))


def _start(bindir: Path, data: Path, root: Path, run_as: dict[str, Any], log: Path, timeout_s: float,
           durable: bool = False) -> LocalPostgres:
    # A free port can be taken between our probe and the server's bind: try a few.
    for _ in range(3):
        port = _free_port()
        cmd = [str(bindir / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(port), "-k", str(root)]
        for setting in () if durable else _FAST:
            cmd += ["-c", setting]
        with log.open("ab") as out:
            process = subprocess.Popen(cmd, cwd=root, env=_env(root), stdout=out, stderr=subprocess.STDOUT, **run_as)
        server = LocalPostgres(url="", port=port, root=root, process=process, command=(cmd, run_as, log))
        if _wait_ready(server, timeout_s):
            return server
        code = process.poll()
        if code is None:
            process.kill()
            process.wait()
        if "Address already in use" not in _tail(log):
            break
    why = f"exited with code {code}" if code is not None else f"was not accepting connections after {timeout_s:.0f}s"
    raise PostgresStartError(f"postgres on 127.0.0.1:{port} {why}\n{_tail(log)}")


def _wait_ready(server: LocalPostgres, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.process.poll() is None:
        try:
            psycopg.connect(server.database_url("postgres"), connect_timeout=2).close()
            return True
        except psycopg.OperationalError:  # not listening yet, or "the database system is starting up"
            time.sleep(0.05)
    return False


def _run_as(root: Path) -> dict[str, Any]:
    """subprocess kwargs that drop root for ``PG_USER``; none when not root. Hands it ``root``."""
    if os.geteuid() != 0:
        return {}
    try:
        entry = pwd.getpwnam(PG_USER)
    except KeyError:
        # Another test process may create it at the same moment: look again rather than trust the exit code.
        made = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
                              capture_output=True, text=True)
        try:
            entry = pwd.getpwnam(PG_USER)
        except KeyError:
            raise PostgresStartError(f"running as root and cannot create user {PG_USER!r} for postgres: {made.stderr.strip()}") from None
    os.chown(root, entry.pw_uid, entry.pw_gid)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _reachable_bindir(root: Path, run_as: dict[str, Any]) -> Path:
    """The bundled bin directory, or a private copy of the install when ``run_as`` cannot execute it."""
    spec = importlib.util.find_spec("pgserver")  # located, not imported: its import sets up lock files
    if spec is None or not spec.submodule_search_locations:
        raise PostgresStartError("the pgserver package (bundled PostgreSQL binaries) is not installed: pip install pgserver")
    package = Path(next(iter(spec.submodule_search_locations)))
    if _can_run(package / "pginstall" / "bin", root, run_as):
        return package / "pginstall" / "bin"
    # The tools find libpq through the RPATH $ORIGIN/../../../pgserver.libs (auditwheel's
    # directory next to the package), so the copy keeps that layout.
    site = root / "site"
    shutil.copytree(package / "pginstall", site / "pgserver" / "pginstall", symlinks=True)
    if (package.parent / "pgserver.libs").is_dir():
        shutil.copytree(package.parent / "pgserver.libs", site / "pgserver.libs", symlinks=True)
    bindir = site / "pgserver" / "pginstall" / "bin"
    if not _can_run(bindir, root, run_as):
        raise PostgresStartError(f"user {PG_USER!r} cannot run the PostgreSQL binaries in {package} nor a copy of them in {site}")
    return bindir


def _can_run(bindir: Path, root: Path, run_as: dict[str, Any]) -> bool:
    # initdb links libpq from pgserver.libs; postgres does not: run both.
    try:
        return all(
            subprocess.run([str(bindir / tool), "-V"], cwd=root, env=_env(root), capture_output=True, **run_as).returncode == 0
            for tool in ("initdb", "postgres")
        )
    except OSError:  # PermissionError from exec: a parent directory is closed to that user
        return False


def _run(cmd: list[str], root: Path, run_as: dict[str, Any], log: Path) -> None:
    with log.open("ab") as out:
        done = subprocess.run(cmd, cwd=root, env=_env(root), stdout=out, stderr=subprocess.STDOUT, **run_as)
    if done.returncode != 0:
        raise PostgresStartError(f"{Path(cmd[0]).name} failed (exit {done.returncode})\n{_tail(log)}")


def _env(root: Path) -> dict[str, str]:
    # PG* variables (PGPORT, PGDATA, PGHOST...) would redirect the tools; an unset or missing
    # locale makes initdb fail on minimal machines.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PG", "LC_")) and k != "LANG"}
    return {**env, "LC_ALL": "C", "HOME": str(root), "TZ": "UTC"}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"
