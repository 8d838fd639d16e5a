"""The selfrag home (``$SELFRAG_HOME`` or ``~/.selfrag``), and the one way a failure to use it is told.

Everything selfrag keeps between runs is a file under it: the config file, the embedded Chroma
folder and its lock, the lexical indexes, the SQLite checkpoints, the turn locks, the API keys.
The user chose the folder, so a message names it and its files (they are theirs, not the
installation's), says that it cannot be read or written, and how to get out.

A home that is a file (or below one) is a ``ConfigError``: the setting is wrong. One that cannot be
read or written is a ``StoreError`` (``store_unavailable``): what the home holds is the store, as
for an unreadable Chroma folder; the CLI exits 1 and the service answers 503. The operating
system's or SQLite's own text goes in ``detail`` only.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from selfrag.errors import ConfigError, StoreError, describe

__all__ = ["HOME_HINT", "check_home", "home_unusable"]

HOME_HINT = (
    "the selfrag home and everything in it must be readable and writable by this user "
    "(or set SELFRAG_HOME to a folder that is)"
)
"""What to do, said after every failure to use the home."""


def home_unusable(
    what: str, exc: BaseException, *, file: Path | None = None, dependency: str | None = None
) -> StoreError:
    """``what`` (``the selfrag home /data/h``, ``the lexical index /data/h/lexical/x.sqlite3``)
    cannot be read or written, because of ``exc``; raise it ``from exc``.

    Args:
        file: The database file SQLite failed to open: SQLite says only "unable to open database
            file", so the operating system is asked why (usually "Permission denied").
        dependency: The error's ``dependency`` when it is not the vector store's (``checkpoints``).
    """
    refusal = exc if isinstance(exc, OSError) else _refusal(file) if file is not None else None
    if refusal is not None:
        reason = refusal.strerror or "the operating system refused"
    elif isinstance(exc, sqlite3.Error):
        reason = "SQLite cannot open or write it"
    else:
        reason = "it cannot be used"
    return StoreError(f"{what} cannot be read or written: {reason}; {HOME_HINT}", detail=describe(exc),
                      dependency=dependency)


def _refusal(file: Path) -> OSError | None:
    """Why the operating system will not open ``file`` for reading and writing, if it will not."""
    try:
        fd = os.open(file, os.O_RDWR)
    except FileNotFoundError:
        return None  # nothing to ask about: SQLite could not create it
    except OSError as exc:
        return exc
    os.close(fd)
    return None


def check_home(home: Path) -> bool:
    """Whether the selfrag home exists; a missing one is fine (the first write creates it).

    Raises:
        ConfigError: it, or a folder it would be in, is a file (or anything but a directory).
        StoreError: a folder above it cannot be entered, so it cannot be looked at.
    """
    for folder in (home, *home.parents):
        try:
            mode = folder.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # missing, or below a file: the folder that exists says which
        except OSError as exc:
            raise home_unusable(f"the selfrag home {home}", exc) from exc
        if stat.S_ISDIR(mode):
            return folder == home
        what = "it" if folder == home else str(folder)
        raise ConfigError(f"the selfrag home {home} (SELFRAG_HOME) is not a directory: {what} is a file; "
                          "set SELFRAG_HOME to a folder")
    return False
