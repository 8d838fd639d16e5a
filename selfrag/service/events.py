"""What the stream tells a client after each graph node: a compact, JSON-ready summary.

Which nodes stream, under which event name, and what their data says all come from the node's
declaration (``workflows.NODES``): ``condense`` and ``finalize`` are bookkeeping and are not
streamed (the ``result`` event follows finalize).
"""

from __future__ import annotations

from typing import Any

from workflows import NODES
from workflows.nodes import node_spec

__all__ = ["ANSWER_EVENTS", "EVENT_NAMES", "STREAMED_NODES", "node_event"]

STREAMED_NODES = {spec.name: spec.event for spec in NODES if spec.event is not None}
"""Graph node → SSE event name, for the nodes that stream."""
ANSWER_EVENTS = ["answer_delta", "answer_reset", "answer"]
"""The answer's own events (``workflows.tokens``): a piece of text as the model writes it; the text
shown so far withdrawn (a new attempt writes); the answer to show and whether it replaces the text
streamed (always sent, right before ``result``)."""
EVENT_NAMES = [*STREAMED_NODES.values(), *ANSWER_EVENTS, "clarification", "result", "error"]
"""Every event the stream can send (``clarification``: a name needs choosing, before ``result``)."""


def node_event(node: str, update: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(event name, data)`` for a finished node, or None when the node is not streamed."""
    spec = node_spec(node)
    if spec is None or spec.event is None:
        return None
    data: dict[str, Any] = {"node": spec.event}
    ms = update["timings"][-1]["ms"]
    data["ms"] = round(float(ms), 1)
    if update.get("stop_reason"):
        data["stop_reason"] = update["stop_reason"]
    data.update(spec.summarize(update).data)  # type: ignore[arg-type]
    return spec.event, data
