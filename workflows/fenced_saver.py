"""A thread's checkpoints in Postgres, written only on top of the checkpoint they follow.

Turns of one thread hold a Postgres session advisory lock (``workflows.checkpoints.turn_locks``),
but such a lock dies with its connection: when Postgres restarts under a running turn, another
instance takes the lock at once and runs the next turn, and the slow turn, writing on, used to
overwrite it (its last checkpoint became the thread's newest, its history without the other turn).

So the write itself is checked: each checkpoint of a thread is stored only if the thread's newest
checkpoint is still the one it follows (its parent), a compare-and-set done in one transaction under
a transaction-level advisory lock of its own (``pg_advisory_xact_lock``; not the turn's session lock,
which the writing turn holds on another connection). A turn whose parent is no longer the newest
lost the race: ``ThreadConflict`` (409 ``thread_busy``), and nothing more of it is written. The
checkpoints it wrote before are an unfinished turn, which no reader and no later turn sees (a
thread is its last completed turn: ``workflows.threads``), so a lost turn leaves no trace in the
conversation, and the turn that won is kept whole. A turn always writes on top of the thread's
newest checkpoint, a failed turn's included, and its run is pinned to the newest it read: so the
thread's checkpoints stay one line, and a turn stored after another read the thread makes that
other's first write fail here instead of being written over.

A parent that is not the newest is not always another turn's doing: when one of the turn's own
writes fails before its commit (its connection killed) and the run writes on, the next write
follows a checkpoint that never landed. Every write of a thread run names its run and the
checkpoint the run started from (``workflows.threads.TURN_ID``, ``TURN_BASE``), so the check tells
the two apart: a newest checkpoint written by this run, or the one it started from, means nothing
else wrote and this run's own write was lost, a ``StoreError`` (503 ``store_unavailable``, dependency
``checkpoints``: send it again); any other newest is another turn's, ``ThreadConflict``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, get_checkpoint_metadata
from langgraph.checkpoint.postgres import PostgresSaver, _internal

from selfrag.errors import StoreError, ThreadConflict
from workflows.threads import TURN_BASE, TURN_ID

__all__ = ["FencedPostgresSaver"]

_NEWEST = (f"SELECT checkpoint_id, metadata ->> '{TURN_ID}' AS run FROM checkpoints "
           "WHERE thread_id = %s AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")


def _write_lock_id(thread_id: str) -> int:
    """The thread's write-lock id: apart from its turn lock's (``selfrag.locking``) and any other."""
    return int.from_bytes(hashlib.sha256(f"selfrag:turn-write:{thread_id}".encode()).digest()[:8], "big") >> 1


class FencedPostgresSaver(PostgresSaver):
    """A ``PostgresSaver`` whose ``put`` is a compare-and-set on the thread's newest checkpoint."""

    def put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions,
    ) -> RunnableConfig:
        configurable: dict[str, Any] = dict(config.get("configurable") or {})
        if configurable.get("checkpoint_ns", ""):
            return super().put(config, checkpoint, metadata, new_versions)  # a subgraph's: not a thread's head
        thread_id = str(configurable["thread_id"])
        parent = configurable.get("checkpoint_id")
        with _internal.get_connection(self.conn) as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_write_lock_id(thread_id),))
            row = conn.execute(_NEWEST, (thread_id,)).fetchone()
            newest = None if row is None else row["checkpoint_id"]
            if newest != parent:
                if _own_write_lost(get_checkpoint_metadata(config, metadata), newest, None if row is None else row["run"]):
                    raise StoreError(
                        "checkpoint store unavailable: an earlier checkpoint of this turn was not stored, "
                        "so the turn cannot be; send it again",
                        detail=f"thread {thread_id!r}: parent checkpoint {parent} missing, newest {newest}",
                        dependency="checkpoints",
                    )
                raise ThreadConflict(
                    "another turn of this thread was stored while this one ran (its lock was lost); "
                    "nothing of this turn was stored: send it again"
                )
            # The same connection, inside this transaction: the check and the write commit together.
            return PostgresSaver(conn, serde=self.serde).put(config, checkpoint, metadata, new_versions)


def _own_write_lost(written: CheckpointMetadata, newest: str | None, newest_run: str | None) -> bool:
    """Whether a write whose parent is not the newest found only its own run's work there: the newest
    checkpoint is this run's, or the one the run started from (no run named: another's, as before)."""
    run = written.get(TURN_ID)
    if not isinstance(run, str):
        return False
    return newest_run == run or newest == written.get(TURN_BASE)
