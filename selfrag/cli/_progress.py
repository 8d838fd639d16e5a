"""Node-by-node progress lines for ``ask`` and ``demo`` (to stderr, so stdout stays clean JSON)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

__all__ = ["describe_update", "print_event"]


def _short(obj: Any, n: int = 90) -> str:
    text = json.dumps(obj, default=str) if not isinstance(obj, str) else obj
    return text if len(text) <= n else text[: n - 1] + "…"


def describe_update(node: str, update: dict[str, Any]) -> str:
    """One human line saying what a node just did."""
    if node == "condense":
        return f"question: {_short(update.get('standalone_question', ''))}"
    if node == "self_query":
        plan = update.get("plan", {})
        return f"query {_short(update.get('query', ''), 50)!r} filter {_short(plan.get('where'), 70)} ({plan.get('source')})"
    if node == "retrieve":
        docs = update.get("documents", [])
        relax = update.get("relaxations") or []
        extra = f", relaxed filter {len(relax)}×" if relax else ""
        return f"{len(docs)} documents{extra}" + (f" — {update['stop_reason']}" if update.get("stop_reason") else "")
    if node == "grade_documents":
        relevant = update.get("relevant", [])
        return f"{len(relevant)} relevant: {', '.join(d['id'][:12] for d in relevant) or '—'}"
    if node == "rewrite":
        last = (update.get("rewrites") or [{}])[-1]
        return f"new query {_short(last.get('to', ''), 70)!r}" + (f" — {update['stop_reason']}" if update.get("stop_reason") else "")
    if node == "generate":
        gen = (update.get("generations") or [{}])[-1]
        return f"answer #{gen.get('number')}: {_short(gen.get('answer') or gen.get('error') or '', 80)}"
    if node == "check":
        gen = (update.get("generations") or [{}])[-1]
        return f"grounded={gen.get('grounded')} useful={gen.get('useful')}"
    if node == "finalize":
        return f"outcome {update.get('outcome')}"
    return ""


def print_event(console: Console, node: str, update: dict[str, Any]) -> None:
    ms = (update.get("timings") or [{}])[-1].get("ms")
    timing = f"[dim]{ms:>7.0f} ms[/]" if isinstance(ms, (int, float)) else ""
    console.print(f"  [cyan]▸ {node:<15}[/] {timing}  {escape(describe_update(node, update))}", markup=True, soft_wrap=True)
