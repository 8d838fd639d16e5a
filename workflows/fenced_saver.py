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
"""

from __future__ import annotations

import hashlib
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.postgres import PostgresSaver, _internal

from selfrag.errors import ThreadConflict

__all__ = ["FencedPostgresSaver"]

_NEWEST = "SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1"


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
                raise ThreadConflict(
                    "another turn of this thread was stored while this one ran (its lock was lost); "
                    "nothing of this turn was stored: send it again"
                )
            # The same connection, inside this transaction: the check and the write commit together.
            return PostgresSaver(conn, serde=self.serde).put(config, checkpoint, metadata, new_versions)
