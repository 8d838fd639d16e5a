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

Rows may also carry a reference answer (``answer_ids``, ``answerable``, ``yes_no``,
``names_entities``; every ``dev`` row does): what the engine's *answer* should be, scored by
``eval.graph_answers``.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, model_validator

from selfrag.values import date_text

__all__ = ["GraphCaseScore", "GraphQuestion", "GraphSetScore", "load_graph_set", "observed", "score_case", "score_graph_set"]


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


class GraphRelation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    relation: str
    value: str
    """The entity name (or value) the relation applies to, as the question says it."""


class DateSpan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    start: str | None
    """First day included (ISO), or None."""
    end: str | None
    """First day excluded (ISO), or None."""


class GraphQuestion(BaseModel):
    """One labelled question of a graph set (a line of ``questions.jsonl``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    split: Literal["dev", "heldout"]
    kind: str
    question: str
    relations: list[GraphRelation]
    mentions: list[str]
    clarify: list[str] | None
    """The candidates of an ambiguous name (the run must end ``needs_clarification``), else None."""
    entities: list[str] | None
    """The entity set the graph should return (intersection over the relations); None without relations."""
    sentiment: Literal["positive", "negative"] | None
    dates: DateSpan | None
    latest: bool
    answer_ids: list[str] | None = None
    """The articles that answer the question (any one cited is a right citation); empty when nothing
    answers it or when the answer is the entity set itself (``names_entities``). None: not annotated."""
    answerable: bool | None = None
    """False when the right reply is "none found" (or, with ``clarify``, the clarification): an
    ``answered`` run is then wrong. None: not annotated."""
    yes_no: Literal["yes", "no"] | None = None
    """The expected yes/no for a yes/no question that has an answer."""
    names_entities: bool = False
    """The answer is the entity set (a list question the graph answers, no article states it): a right
    answer names every entity of ``entities``."""

    @property
    def annotated(self) -> bool:
        """Whether the row carries a reference answer."""
        return self.answer_ids is not None and self.answerable is not None

    @property
    def entity_set(self) -> list[str]:
        """The entities the question is about: the graph's set, else the direct mentions."""
        return self.entities if self.entities is not None else self.mentions

    @model_validator(mode="after")
    def _consistent(self) -> GraphQuestion:
        if (self.answer_ids is None) != (self.answerable is None):
            raise ValueError(f"{self.id}: answer_ids and answerable go together")
        if self.answerable is False and (self.answer_ids or self.yes_no or self.names_entities):
            raise ValueError(f"{self.id}: an unanswerable row has no answer_ids, yes_no or names_entities")
        if self.answerable and not self.answer_ids and not self.names_entities:
            raise ValueError(f"{self.id}: an answerable row names its answer_ids or names_entities")
        if self.names_entities and not self.entities:
            raise ValueError(f"{self.id}: names_entities needs a non-empty entity set")
        if self.clarify is not None and self.answerable:
            raise ValueError(f"{self.id}: an ambiguous question is answered by the clarification (answerable false)")
        return self


def load_graph_set(folder: str | Path) -> list[GraphQuestion]:
    """The labelled questions of a graph set folder (``questions.jsonl``), validated.

    Raises:
        pydantic.ValidationError: a line has the wrong shape or an inconsistent reference answer.
    """
    path = Path(folder) / "questions.jsonl"
    return [GraphQuestion.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


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


def _wanted(row: GraphQuestion) -> dict[str, Any]:
    rel = (sorted(r.relation for r in row.relations) if row.clarify is not None
           else sorted((r.relation, r.value) for r in row.relations))
    return {"relations": rel, "mentions": sorted(row.mentions), "clarify": row.clarify, "entities": row.entities,
            "sentiment": row.sentiment, "dates": row.dates.model_dump() if row.dates else None, "latest": row.latest}


def score_case(row: GraphQuestion, result: Any, ms: float) -> GraphCaseScore:
    """What ``result`` (a run of ``row``'s question) got wrong of the labels."""
    got, want = observed(result), _wanted(row)
    wrong = {k: {"got": got[k], "want": want[k]} for k in want
             if json.dumps(got[k], sort_keys=True) != json.dumps(want[k], sort_keys=True)}
    return GraphCaseScore(row.id, row.split, row.kind, round(ms, 1), str(result.outcome.value), wrong)


def score_graph_set(engine: _Engine, rows: list[GraphQuestion], *, collection: str) -> GraphSetScore:
    """Run every question through ``engine`` and compare what it did with the labels."""
    cases = []
    for row in rows:
        t0 = time.perf_counter()
        result = engine.run(row.question, collection=collection)
        cases.append(score_case(row, result, (time.perf_counter() - t0) * 1000))
    return GraphSetScore(cases)
