"""The one ``flock(2)`` primitive behind selfrag's file locks (``selfrag.locking``, ``selfrag.store.lock``).

``flock`` locks belong to an open file description: two descriptors conflict even inside one
process, and the kernel drops a lock when the last descriptor closes or its process dies, so a
crash never leaves a stale lock. Never blocking: callers decide whether to wait (polling against a
deadline) or to refuse at once; only a downgrade waits.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

__all__ = ["open_lock_file", "try_lock"]


def open_lock_file(path: Path, *, mode: int = 0o600, create: bool = True) -> int:
    """Open (by default creating, with its directory) the lock file at ``path``; the descriptor.

    Raises:
        OSError: it cannot be opened or created (the callers word their own error).
    """
    if not create:
        return os.open(path, os.O_RDONLY)
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, mode)


def try_lock(fd: int, *, exclusive: bool, wait: bool = False) -> bool:
    """Take (or convert to) an exclusive or shared lock on ``fd``: whether it was taken.

    Without ``wait`` it never blocks. On Linux a conversion is not atomic: a failed upgrade from
    shared to exclusive drops the shared lock the descriptor had, and a downgrade can meet another
    process's exclusive lock in between (so a downgrade waits).
    """
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True
