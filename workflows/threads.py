"""A thread as its readers and its next turn see it: its last completed turn, nothing after it.

Every step of a turn writes a checkpoint, so a turn that fails mid-run (a dependency dies, the
client leaves, the deadline passes) leaves the checkpoints of the steps it ran behind it, and
the first of them already differ from the thread: ``condense`` clears a pending clarification,
the turn's input names its collections. A checkpoint with work still to run (LangGraph's pending
tasks) belongs to such an unfinished turn; only a checkpoint where the graph reached its end is a
completed turn. So:

- the thread's views (its history, ``GET /v1/threads/{id}``, its collections, the scope checks on
  them) read its last completed turn, and a thread without one does not exist;
- its next turn carries the ``Kept`` values of that turn (``workflows.state.kept_values``) and
  writes on top of the thread's newest checkpoint, whatever it is: the new turn's input replaces
  every field, so nothing of an unfinished turn reaches it, and the write chain stays one line,
  which the Postgres compare-and-set (``workflows.fenced_saver``) checks as before. The run is
  pinned to the newest checkpoint read here: a turn stored meanwhile (by a turn whose lock was
  lost) makes this turn's first write fail the compare-and-set instead of being written over.

Every checkpoint of a turn's run carries the run's id in its metadata (``TURN_ID``), so the
thread says which run stored its last completed turn (``ThreadHead.completed_by``): after a
checkpoint write failed without saying whether the turn was stored, the engine reads it to tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from workflows.state import Turn

__all__ = ["TURN_BASE", "TURN_ID", "ThreadHead", "ThreadInfo", "read_thread"]

TURN_ID = "selfrag_turn_id"
"""The checkpoint metadata key naming the run that wrote the checkpoint (the engine sets it in the
run's ``metadata``, which LangGraph copies into each checkpoint's)."""

TURN_BASE = "selfrag_turn_base"
"""The checkpoint metadata key naming the checkpoint the run started from (the thread's newest when
it was read; absent for a thread's first turn): the compare-and-set (``workflows.fenced_saver``)
tells by it that a write found nothing newer than where its run began."""

_PAGE = 16
"""Checkpoints read at a time when the newest is an unfinished turn's (a turn writes about a dozen)."""


@dataclass(frozen=True)
class ThreadInfo:
    """A stored conversation: the collection(s) of its last turn and its turns, oldest first."""

    thread_id: str
    collection: str | None
    turns: list[Turn]
    collections: list[str] = field(default_factory=list)
    """Every collection its last turn targeted (``collection`` first)."""


@dataclass(frozen=True)
class ThreadHead:
    """Where a thread stands: its newest checkpoint and its last completed turn's state."""

    thread_id: str
    newest: str | None
    """The id of the thread's newest checkpoint, which the next turn's first write follows (None: nothing stored)."""
    completed: dict[str, Any] | None
    """The state of its last completed turn (None: no turn of it ever completed)."""
    completed_by: str | None = None
    """The id of the run that stored that turn (``TURN_ID``; None: none, or stored before runs were named)."""

    @property
    def history(self) -> list[Turn]:
        return [] if self.completed is None else list(self.completed["history"])

    def info(self) -> ThreadInfo | None:
        """The conversation its readers see, or None when no turn of it completed."""
        values = self.completed
        if values is None:
            return None
        collection = values["collection"]
        # A checkpoint written before turns recorded their collections has only the first.
        collections = list(values.get("collections") or [collection])
        return ThreadInfo(self.thread_id, collection, list(values["history"]), collections)

    def run_config(self) -> dict[str, Any]:
        """The ``configurable`` of the next turn's run: this thread, pinned to its newest checkpoint."""
        pinned = {} if self.newest is None else {"checkpoint_id": self.newest}
        return {"thread_id": self.thread_id, **pinned}


def read_thread(graph: CompiledStateGraph[Any, Any, Any, Any], thread_id: str) -> ThreadHead:
    """The thread's newest checkpoint and its last completed turn (newest first, paged: usually the
    newest is one, and only the checkpoints of the unfinished turns after it are read)."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    newest: str | None = None
    before: RunnableConfig | None = None
    limit = 1
    while True:
        page = list(graph.get_state_history(config, before=before, limit=limit))
        for snapshot in page:
            if newest is None:
                newest = snapshot.config["configurable"]["checkpoint_id"]
            if not snapshot.tasks:  # nothing left to run: the graph reached its end
                # LangGraph's metadata, not our record: a checkpoint older than TURN_ID has none.
                run = (snapshot.metadata or {}).get(TURN_ID)
                return ThreadHead(thread_id, newest, dict(snapshot.values), run if isinstance(run, str) else None)
        if len(page) < limit:
            return ThreadHead(thread_id, newest, None)
        before, limit = page[-1].config, _PAGE
