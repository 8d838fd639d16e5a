"""Scoring the self-query step on a labelled set: filters by what they select, limits, search text.

    plan_set = load_plan_set("eval/sets/recipes")
    score = score_plan_set(plan_set, planner_fn(planner, plan_set))
    print(score.summary("dev"), *score.failures("dev"), sep="\\n")

A produced filter is right when, over probe records built from the schema and the constants of
both filters (``eval.probes``), a real Chroma selects the same records with it as with one of
the accepted filters. The limit is right when it equals the labelled one. The search text is
checked too: never empty or a template placeholder, and sharing a content word with the question.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from eval.plan_sets import PlanCase, PlanSet, PlanSplit
from eval.probes import ProbeChroma, probe_records
from selfrag.errors import one_line
from selfrag.text import content_terms

__all__ = ["CaseScore", "PlanFn", "Planned", "SetScore", "planner_fn", "score_plan_set"]

_PLACEHOLDER = re.compile(r"^\W*(?:<[^<>]*>|\{[^{}]*\}|n/?a|none|null|query|question|search|text)\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Planned:
    """What a planner produced for one question."""

    where: dict[str, Any] | None
    query: str
    limit: int | None
    source: str = ""
    changes: list[str] = field(default_factory=list)
    seconds: float = 0.0


PlanFn = Callable[[str], Planned]


def planner_fn(planner: Any, plan_set: PlanSet) -> PlanFn:
    """Adapt a ``SelfQueryPlanner`` to the set's schema and catalogue."""
    schema, catalogue = plan_set.schema_, plan_set.catalogue()

    def plan(question: str) -> Planned:
        start = time.perf_counter()
        p = planner.plan(question, schema, catalogue)
        return Planned(
            where=p.where, query=p.query.query, limit=p.query.limit, source=p.source,
            changes=[f"{c.kind}: {c.detail}" for c in p.changes], seconds=time.perf_counter() - start,
        )

    return plan


def search_text_ok(text: str, question: str) -> bool:
    """Not empty, not a placeholder, and sharing a content word with the question."""
    if not text.strip() or _PLACEHOLDER.match(text):
        return False
    return bool(content_terms(text) & content_terms(question)) or not content_terms(question)


@dataclass(frozen=True)
class CaseScore:
    case: PlanCase
    planned: Planned
    filter_ok: bool
    limit_ok: bool
    query_ok: bool
    diff: str = ""

    @property
    def ok(self) -> bool:
        return self.filter_ok and self.limit_ok

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id, "split": self.case.split, "question": self.case.question,
            "filter_ok": self.filter_ok, "limit_ok": self.limit_ok, "query_ok": self.query_ok,
            "where": self.planned.where, "query": self.planned.query, "limit": self.planned.limit,
            "source": self.planned.source, "seconds": round(self.planned.seconds, 3), "diff": self.diff,
        }


def _rate(scores: list[CaseScore], attr: str) -> float | None:
    return round(sum(bool(getattr(s, attr)) for s in scores) / len(scores), 3) if scores else None


@dataclass
class SetScore:
    name: str
    cases: list[CaseScore]

    def select(self, split: PlanSplit | Literal["all"]) -> list[CaseScore]:
        return [s for s in self.cases if split == "all" or s.case.split == split]

    def summary(self, split: PlanSplit | Literal["all"] = "all") -> dict[str, Any]:
        chosen = self.select(split)
        secs = sorted(s.planned.seconds for s in chosen)
        sources: dict[str, int] = {}
        for s in chosen:
            sources[s.planned.source] = sources.get(s.planned.source, 0) + 1
        return {
            "set": self.name, "split": split, "questions": len(chosen),
            "filter_accuracy": _rate(chosen, "filter_ok"), "limit_accuracy": _rate(chosen, "limit_ok"),
            "accuracy": _rate(chosen, "ok"), "query_ok": _rate(chosen, "query_ok"),
            "sources": sources, "seconds_p50": round(secs[len(secs) // 2], 3) if secs else None,
        }

    def failures(self, split: PlanSplit | Literal["all"] = "all") -> list[str]:
        """One readable block per question that is not fully right."""
        out = []
        for s in self.select(split):
            if s.ok and s.query_ok:
                continue
            lines = [f"✗ {s.case.id} [{s.case.split}] {s.case.question}"]
            if not s.filter_ok:
                lines.append(f"    {s.diff}")
            if not s.limit_ok:
                lines.append(f"    limit: expected {s.case.limit}, produced {s.planned.limit}")
            if not s.query_ok:
                lines.append(f"    search text not grounded: {s.planned.query!r}")
            out.append("\n".join(lines))
        return out


def _show(where: Mapping[str, Any] | None) -> str:
    return json.dumps(where or {}, ensure_ascii=False)


def _example(records: list[dict[str, Any]], ids: frozenset[str]) -> str:
    if not ids:
        return ""
    first = min(ids, key=int)
    record = {k: v for k, v in records[int(first)].items() if k != "_probe"}
    return json.dumps(record, ensure_ascii=False)


def _score_filter(chroma: ProbeChroma, plan_set: PlanSet, case: PlanCase, where: dict[str, Any] | None) -> tuple[bool, str]:
    records = probe_records(plan_set.schema_, [*case.accept, where], catalogue=plan_set.catalogue(), seed=len(case.id),
                            respect_schema=True)
    with chroma.loaded(records) as col:
        wanted = [chroma.select(col, a or None) for a in case.accept]
        try:
            got = chroma.select(col, where or None)
        except Exception as exc:  # noqa: BLE001 - Chroma refusing the filter is a wrong answer, not a crash
            return False, f"expected {_show(case.accept[0])}; produced {_show(where)}, which Chroma rejects: {one_line(exc, 160)}"
    if got in wanted:
        return True, ""
    want = wanted[0]
    missed, extra = want - got, got - want
    parts = [f"expected {_show(case.accept[0])}" + (f" (or {len(case.accept) - 1} other)" if len(case.accept) > 1 else ""),
             f"produced {_show(where)}",
             f"selects {len(got)} of {len(records)} probes, expected {len(want)}"]
    if missed:
        parts.append(f"misses e.g. {_example(records, missed)}")
    if extra:
        parts.append(f"wrongly selects e.g. {_example(records, extra)}")
    return False, "\n    ".join(parts)


def score_plan_set(
    plan_set: PlanSet,
    plan: PlanFn,
    *,
    split: PlanSplit | Literal["all"] = "all",
    progress: Callable[[int, int], None] | None = None,
) -> SetScore:
    """Plan every question of ``split`` and score it (see the module docstring)."""
    cases = plan_set.split(split)
    scores = []
    chroma = ProbeChroma()
    try:
        for n, case in enumerate(cases, 1):
            planned = plan(case.question)
            filter_ok, diff = _score_filter(chroma, plan_set, case, planned.where)
            scores.append(CaseScore(
                case=case, planned=planned, filter_ok=filter_ok, limit_ok=planned.limit == case.limit,
                query_ok=search_text_ok(planned.query, case.question), diff=diff,
            ))
            if progress is not None:
                progress(n, len(cases))
    finally:
        chroma.close()
    return SetScore(plan_set.name, scores)
