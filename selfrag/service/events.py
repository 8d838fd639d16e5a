"""What the stream tells a client after each graph node: a compact, JSON-ready summary.

Event names are the diagram's (``grade`` for ``grade_documents``); ``condense`` and ``finalize``
are bookkeeping and are not streamed (the ``result`` event follows finalize).
"""

from __future__ import annotations

from typing import Any

__all__ = ["STREAMED_NODES", "node_event"]

STREAMED_NODES = {
    "self_query": "self_query",
    "retrieve": "retrieve",
    "grade_documents": "grade",
    "rewrite": "rewrite",
    "generate": "generate",
    "check": "check",
}


def node_event(node: str, update: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(event name, data)`` for a finished node, or None when the node is not streamed."""
    name = STREAMED_NODES.get(node)
    if name is None:
        return None
    data: dict[str, Any] = {"node": name}
    ms = (update.get("timings") or [{}])[-1].get("ms")
    if isinstance(ms, (int, float)):
        data["ms"] = round(float(ms), 1)
    if update.get("stop_reason"):
        data["stop_reason"] = update["stop_reason"]
    data.update(_DETAIL[name](update))
    return name, data


def _self_query(u: dict[str, Any]) -> dict[str, Any]:
    plan = u.get("plan") or {}
    return {"query": u.get("query", ""), "filter": plan.get("where"), "limit": u.get("limit"), "source": plan.get("source")}


def _retrieve(u: dict[str, Any]) -> dict[str, Any]:
    docs = u.get("documents") or []
    return {
        "filter": u.get("where"),
        "documents": [{"id": d.get("id"), "score": d.get("score")} for d in docs],
        "relaxations": len(u.get("relaxations") or []),
    }


def _grade(u: dict[str, Any]) -> dict[str, Any]:
    relevant = u.get("relevant") or []
    return {"relevant": [d.get("id") for d in relevant]}


def _rewrite(u: dict[str, Any]) -> dict[str, Any]:
    last = (u.get("rewrites") or [{}])[-1]
    return {"query": last.get("to", u.get("query", "")), "reason": last.get("reason")}


def _generate(u: dict[str, Any]) -> dict[str, Any]:
    gen = (u.get("generations") or [{}])[-1]
    return {"number": gen.get("number"), "answer": gen.get("answer", ""), "strategy": gen.get("strategy")}


def _check(u: dict[str, Any]) -> dict[str, Any]:
    gen = (u.get("generations") or [{}])[-1]
    return {"grounded": gen.get("grounded"), "useful": gen.get("useful")}


_DETAIL = {
    "self_query": _self_query,
    "retrieve": _retrieve,
    "grade": _grade,
    "rewrite": _rewrite,
    "generate": _generate,
    "check": _check,
}
