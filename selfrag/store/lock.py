"""One embedded store, one writing process: a lock beside the data directory's Chroma folder.

Embedded Chroma (``PersistentClient``) keeps its vector index in the memory of the process that
opened it. Chunks another process adds to the same folder are invisible to it (its searches miss
them; a filter matching only them fails inside Chroma with "Error finding id"), and a process that
opens the folder while another is writing can find rows whose vectors are not there yet. So every
process that opens the embedded store takes this lock first:

- writers (``serve``, ``ingest``, ``demo``, ``eval run``, deleting) take it exclusively;
- readers (``ask``, ``plan``, listing collections) share it with other readers.

A refused process fails at once with one line naming the holder and the way out: the running
server's API (the exact request), or a Chroma server (``store.chroma_url``), which any number of
processes share and which needs no lock.

The lock is ``flock(2)`` on ``<folder>.lock``. The kernel drops it when its process ends, however it
ends (``kill -9`` included), so a crash never leaves a stale lock behind; the holder description
written into the file is only read while the lock is held. Within one process the lock is
re-entrant (tests and the evaluation harness open the same store several times): it is counted,
and upgraded from shared to exclusive when a writer joins readers of the same process.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from selfrag._flock import open_lock_file, try_lock
from selfrag.errors import StoreLocked
from selfrag.home import home_unusable

__all__ = ["StoreLock", "StoreUse", "lock_store", "serving_url"]


@dataclass(frozen=True)
class StoreUse:
    """Who opens the embedded store and how: the lock's mode, and what a refused process is told."""

    command: str = "a selfrag process"
    """How the holder is named to others, e.g. ``selfrag ingest``."""
    write: bool = True
    """Exclusive (writers) or shared (readers only)."""
    url: str | None = None
    """A server's base URL, so that a refused process can be sent to its API."""
    api: str | None = None
    """The request that does the same through a running server, e.g. ``POST /v1/answers``."""


@dataclass
class _Held:
    fd: int
    readers: int = 0
    writers: int = 0


_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()


class StoreLock:
    """A held lock; ``release`` it once (later calls do nothing)."""

    def __init__(self, path: Path, write: bool) -> None:
        self.path = path
        self.write = write
        self._released = False

    def release(self) -> None:
        with _GUARD:
            if self._released:
                return
            self._released = True
            held = _HELD[self.path]
            if self.write:
                held.writers -= 1
            else:
                held.readers -= 1
            if held.readers + held.writers == 0:
                del _HELD[self.path]
                os.close(held.fd)  # closing the last descriptor drops the flock
            elif self.write and held.writers == 0:
                try_lock(held.fd, exclusive=False, wait=True)  # readers of this process remain: let other readers in


def lock_store(folder: Path, use: StoreUse) -> StoreLock:
    """Take the lock of the embedded store in ``folder`` for ``use``.

    Raises:
        StoreLocked: another process holds it in a conflicting mode (the message says who and
            what to do instead).
        StoreError: the lock file cannot be created (e.g. the data directory is read-only).
    """
    path = folder.with_name(folder.name + ".lock").absolute()
    with _GUARD:
        held = _HELD.get(path)
        if held is None:
            try:
                fd = open_lock_file(path, mode=0o644)
            except OSError as exc:
                raise home_unusable(f"the store lock {path} in the selfrag home", exc) from exc
            if not try_lock(fd, exclusive=use.write):
                os.close(fd)
                raise _refusal(folder, path, use)
            held = _Held(fd)
            _HELD[path] = held
        elif use.write and held.writers == 0:
            if not try_lock(held.fd, exclusive=True):
                # Linux drops the shared lock while trying to convert it: take it back for our readers
                # (without waiting: a hang would be worse than the near-impossible race it guards).
                try_lock(held.fd, exclusive=False)
                raise _refusal(folder, path, use)
        if use.write:
            if held.writers == 0:
                _describe(held.fd, use)
            held.writers += 1
        else:
            held.readers += 1
        return StoreLock(path, use.write)


def _describe(fd: int, use: StoreUse) -> None:
    """Write who holds the lock exclusively, for the processes it refuses."""
    info = {"pid": os.getpid(), "command": use.command, "url": use.url, "since": time.strftime("%Y-%m-%d %H:%M:%S")}
    data = json.dumps(info).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def _refusal(folder: Path, path: Path, use: StoreUse) -> StoreLocked:
    shared = _only_readers(path)
    way_out = "or configure a Chroma server (store.chroma_url), which several processes can share"
    if shared:
        return StoreLocked(
            f"the embedded store in {folder} is open for reading by another selfrag process (ask, plan or a "
            f"listing), and embedded Chroma cannot be written while another process has it open: retry when it "
            f"has finished, {way_out}"
        )
    holder = _holder(path)
    who = f"{holder.get('command') or 'another selfrag process'}"
    if isinstance(holder.get("pid"), int):
        who += f" (pid {holder['pid']})"
    raw_url = holder.get("url")
    url = raw_url if isinstance(raw_url, str) else None
    if url:
        who += f" at {url}"
    head = f"the embedded store in {folder} is in use by {who}; embedded Chroma serves one process at a time"
    if url and use.api:
        method, _, route = use.api.partition(" ")
        return StoreLocked(f"{head}: send this through its API instead ({method} {url.rstrip('/')}{route}), {way_out}")
    if url:
        return StoreLocked(f"{head}: use its API ({url.rstrip('/')}/docs) or stop it first, {way_out}")
    return StoreLocked(f"{head}: retry when it has finished, {way_out}")


def _only_readers(path: Path) -> bool:
    """Whether the current holders are readers (a shared lock can still be taken)."""
    try:
        fd = open_lock_file(path, create=False)
    except OSError:
        return False
    try:
        return try_lock(fd, exclusive=False)
    finally:
        os.close(fd)  # also drops the probe's shared lock


def _holder(path: Path) -> dict[str, object]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def serving_url(folder: Path) -> str | None:
    """The URL of the server that holds the embedded store in ``folder`` exclusively, or None.

    None when no process holds it for writing, or when the holder is no server (an ingest).

    Raises:
        StoreError: the data directory holding the lock cannot be entered.
    """
    path = folder.with_name(folder.name + ".lock").absolute()
    with _GUARD:
        if path in _HELD:  # this process holds it (tests, the evaluation harness): no other server does
            return None
    try:
        if not path.exists() or _only_readers(path):
            return None
    except OSError as exc:  # the selfrag home cannot be entered
        raise home_unusable(f"the selfrag home {folder.parent}", exc) from exc
    url = _holder(path).get("url")
    return url if isinstance(url, str) and url else None
