"""Scoring graph-based filtering end to end on a labelled set (``eval/sets/companies``).

    rows = load_graph_set("eval/sets/companies")
    score = score_graph_set(engine, rows, collection="companies")

Each question runs through the whole engine (self-query, graph resolution in the real graph
store, the search or latest-first, grading, generation); what the run *did* is read back from
its result and compared with the labels: the relation conditions and the entity each applies to,
the direct mentions, the candidates of an ambiguous name (the run must end
``needs_clarification``), the entity set the graph returned (intersection over the relations),
the named sentiment range, the date range and whether the newest documents were asked for.
A question is right when all of them match. Latency is the whole run's wall time.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from selfrag.values import date_text

__all__ = ["GraphCaseScore", "GraphSetScore", "load_graph_set", "observed", "score_graph_set"]


class _Engine(Protocol):
    def run(self, question: str, *, collection: str) -> Any: ...


@dataclass(frozen=True)
class GraphCaseScore:
    id: str
    split: str
    kind: str
    ms: float
    outcome: str
    wrong: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return not self.wrong


@dataclass(frozen=True)
class GraphSetScore:
    cases: list[GraphCaseScore]

    def summary(self, split: str) -> dict[str, Any]:
        rs = [c for c in self.cases if c.split == split]
        ms = sorted(c.ms for c in rs)
        return {
            "questions": len(rs),
            "exact": sum(c.exact for c in rs),
            "fraction": round(sum(c.exact for c in rs) / len(rs), 3) if rs else None,
            "latency_ms": {"median": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
                           "max": round(ms[-1], 1)} if ms else None,
        }


def load_graph_set(folder: str | Path) -> list[dict[str, Any]]:
    """The labelled questions of a graph set folder (``questions.jsonl``)."""
    path = Path(folder) / "questions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _dates(node: Any, attribute: str, out: dict[str, str | None]) -> None:
    if isinstance(node, dict) and "operator" in node:
        for a in node["arguments"]:
            _dates(a, attribute, out)
    elif isinstance(node, dict) and node.get("attribute") == attribute:
        key = "start" if node["comparator"] in ("gte", "gt") else "end"
        out[key] = date_text(int(node["value"]))


def observed(result: Any, date_attribute: str = "date") -> dict[str, Any]:
    """What a run did, in the labels' terms (see the module docstring)."""
    plan = result.trace.plan
    graph = plan.get("graph", {})
    terms = graph.get("terms", [])
    clarify = None
    if result.outcome == "needs_clarification" and result.clarification is not None:
        clarify = sorted(c["name"] for c in result.clarification["candidates"])
    relations = [t for t in terms if t["kind"] == "relation"]
    rel = (sorted(t["relation"] for t in relations) if clarify is not None
           else sorted([t["relation"], t["entity"]["name"] if t["entity"] else t["value"]] for t in relations))
    mentions = sorted(t["entity"]["name"] for t in terms if t["kind"] == "mention" and t["entity"])
    entities = None
    resolved = [r for r in graph.get("resolutions", []) if r["kind"] == "relation"]
    if relations and clarify is None and resolved:
        sets = [{e["name"] for e in r["entities"]} for r in resolved]
        entities = sorted(set.intersection(*sets))
    sentiment = next((c["detail"].split("'")[1] for c in plan.get("changes", []) if c["kind"] == "named_range"), None)
    span: dict[str, str | None] = {"start": None, "end": None}
    _dates((plan.get("structured_query") or {}).get("filter"), date_attribute, span)
    dates = None if span == {"start": None, "end": None} else span
    return {"relations": [tuple(r) if isinstance(r, list) else r for r in rel], "mentions": mentions,
            "clarify": clarify, "entities": entities, "sentiment": sentiment, "dates": dates,
            "latest": bool(graph.get("latest"))}


def _wanted(row: dict[str, Any]) -> dict[str, Any]:
    rel = (sorted(r["relation"] for r in row["relations"]) if row["clarify"] is not None
           else sorted((r["relation"], r["value"]) for r in row["relations"]))
    return {"relations": rel, "mentions": sorted(row["mentions"]), "clarify": row["clarify"],
            "entities": row["entities"], "sentiment": row["sentiment"], "dates": row["dates"], "latest": row["latest"]}


def score_graph_set(engine: _Engine, rows: list[dict[str, Any]], *, collection: str) -> GraphSetScore:
    """Run every question through ``engine`` and compare what it did with the labels."""
    cases = []
    for row in rows:
        t0 = time.perf_counter()
        result = engine.run(row["question"], collection=collection)
        ms = (time.perf_counter() - t0) * 1000
        got, want = observed(result), _wanted(row)
        wrong = {k: {"got": got[k], "want": want[k]} for k in want
                 if json.dumps(got[k], sort_keys=True) != json.dumps(want[k], sort_keys=True)}
        cases.append(GraphCaseScore(row["id"], row["split"], row["kind"], round(ms, 1), str(result.outcome.value), wrong))
    return GraphSetScore(cases)
