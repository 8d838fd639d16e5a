"""Permission denied inside a folder, for tests that may run as root (whom chmod does not stop).

``deny(monkeypatch, folder)`` makes every file operation on a path strictly inside ``folder`` fail
as it fails for an ordinary user when ``folder`` has mode 000 (or is another user's, mode 700):
``EACCES`` from the ``os`` calls that pathlib, the lock files and the lexical index make, and
SQLite's "unable to open database file". ``folder`` itself can still be looked at, as a mode-000
folder can by its parent's readers. Chroma's own (Rust) file access is not covered: deny a folder
Chroma does not read, or one a command fails on before it opens Chroma.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["deny"]

_OS_CALLS = ("stat", "lstat", "open", "mkdir", "unlink", "rmdir", "rename", "replace", "scandir", "listdir")


def deny(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Fail every file operation strictly inside ``folder`` with ``EACCES`` until the test ends."""
    root = os.path.abspath(folder) + os.sep

    def inside(path: object) -> bool:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False  # a descriptor
        return os.path.abspath(os.fsdecode(path)).startswith(root)

    def guarded(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if args and inside(args[0]):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(args[0]))
            return real(*args, **kwargs)

        return call

    for name in _OS_CALLS:
        monkeypatch.setattr(os, name, guarded(getattr(os, name)))
    real_connect = sqlite3.connect

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if inside(database):
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
