"""What each node just did, once: JSON data for the SSE stream and a human line for the CLI.

One function per node, over the fields the node wrote (``SelfRagState`` is total=False: an
update holds only what its node returned). ``NodeSpec.summarize`` points at these; the service's
events and the CLI's progress lines both read the same ``NodeSummary``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from workflows.state import SelfRagState

__all__ = ["NodeSummary", "short"]


@dataclass(frozen=True)
class NodeSummary:
    text: str
    """One human line (CLI progress)."""
    data: dict[str, Any] = field(default_factory=dict)
    """JSON-ready details (the SSE event's body, with the node name, timing and stop reason)."""


def short(obj: Any, n: int = 90) -> str:
    """``obj`` as at most ``n`` characters (JSON unless it is a string)."""
    text = json.dumps(obj, default=str) if not isinstance(obj, str) else obj
    return text if len(text) <= n else text[: n - 1] + "…"


def _stopped(u: SelfRagState) -> str:
    return f" — {u['stop_reason']}" if u.get("stop_reason") else ""


def condense(u: SelfRagState) -> NodeSummary:
    return NodeSummary(f"question: {short(u['standalone_question'])}")


def self_query(u: SelfRagState) -> NodeSummary:
    plan = u["plan"]
    plans = u["resource_plans"]
    if len(plans) > 1:  # several resources: one plan each
        parts = [f"{p['resource']}: " + (f"failed ({p['error_code']})" if p["error"] else
                                          f"filter {short(p['filter'], 40)} ({p['source']})") for p in plans]
        return NodeSummary("; ".join(parts), {"query": u["query"], "resources": [
            {"resource": p["resource"], "query": p["query"], "filter": p["filter"], "where": p["fixed"], "k": p["k"],
             "source": p["source"], "error": p["error_code"]} for p in plans]})
    where = plan["where"] if "where" in plan else plans[0]["fixed"]
    limit = plan["structured_query"]["limit"] if "structured_query" in plan else None
    text = f"query {short(u['query'], 50)!r} filter {short(where, 70)} ({plans[0]['source']})"
    data: dict[str, Any] = {"query": u["query"], "filter": where, "limit": limit, "source": plans[0]["source"]}
    if "speculation" in plan:  # present only when the search and grading ran beside the plan
        spec = plan["speculation"]
        text += f"; speculative search {'kept' if spec['kept'] else 'dropped'}"
        data["speculation"] = spec
    return NodeSummary(text, data)


def graph_resolve(u: SelfRagState) -> NodeSummary:
    graph = u["plan"]["graph"]
    if graph.get("clarification"):
        ask = graph["clarification"]
        names = [c["name"] for c in ask["candidates"]]
        return NodeSummary(f"{ask['value']!r} is ambiguous: {', '.join(names)}",
                           {"clarification": ask})
    resolved = graph.get("resolutions", [])
    parts = [f"{r.get('relation', 'mentions')}({r['entity']['name']}) → {len(r['entities'])}" for r in resolved]
    data = {"resolutions": resolved, "filter": graph.get("where")}
    return NodeSummary(("; ".join(parts) or "no graph condition") + _stopped(u), data)


def latest(u: SelfRagState) -> NodeSummary:
    docs = u["documents"]
    info = u["plan"]["latest"]
    return NodeSummary(f"{len(docs)} newest by {info['attribute']} (no vector search)",
                       {"filter": u["where"], "documents": [d["id"] for d in docs], "attribute": info["attribute"]})


def retrieve(u: SelfRagState) -> NodeSummary:
    docs, relax = u["documents"], u["relaxations"]
    extra = f", relaxed filter {len(relax)}×" if relax else ""
    data = {
        "filter": u["where"],
        "documents": [{"id": d["id"], "score": d["score"], "resource": d["resource"]} for d in docs],
        "relaxations": len(relax),
    }
    return NodeSummary(f"{len(docs)} documents{extra}{_stopped(u)}", data)


def grade_documents(u: SelfRagState) -> NodeSummary:
    relevant = u["relevant"]
    text = f"{len(relevant)} relevant: {', '.join(d['id'][:12] for d in relevant) or '—'}"
    return NodeSummary(text, {"relevant": [d["id"] for d in relevant]})


def rewrite(u: SelfRagState) -> NodeSummary:
    last = u["rewrites"][-1]
    return NodeSummary(f"new query {short(last['to'], 70)!r}{_stopped(u)}", {"query": last["to"], "reason": last["reason"]})


def generate(u: SelfRagState) -> NodeSummary:
    gen = u["generations"][-1]
    text = f"answer #{gen['number']}: {short(gen['answer'] or gen['error'] or '', 80)}"
    return NodeSummary(text, {"number": gen["number"], "answer": gen["answer"], "strategy": gen["strategy"]})


def check(u: SelfRagState) -> NodeSummary:
    gen = u["generations"][-1]
    return NodeSummary(f"grounded={gen['grounded']} useful={gen['useful']}", {"grounded": gen["grounded"], "useful": gen["useful"]})


def finalize(u: SelfRagState) -> NodeSummary:
    return NodeSummary(f"outcome {u['outcome']}")


def written(u: SelfRagState) -> NodeSummary:
    """The default for a node without a summary of its own: the fields it wrote, shortened.

    A new node streams and prints something sensible from its first run; a dedicated summary
    here is an improvement, not a requirement.
    """
    fields = {key: value for key, value in u.items() if key not in ("timings", "stop_reason")}
    text = ", ".join(f"{key} {short(value, 40)}" for key, value in fields.items()) or "done"
    return NodeSummary(f"{text}{_stopped(u)}", fields)
