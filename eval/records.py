"""One case through the engine, and the two rows it leaves: ``cases.jsonl`` and ``traces.jsonl``.

``cases.jsonl`` is flat and small (what ``eval.compare`` and a spreadsheet read): the answer, the
outcome, each metric's value under a fixed name, cost, and the error if the case raised.
Metric reasons ride along in ``reasons``. ``traces.jsonl`` is the why: the graph path, every
grader verdict with its prompt version and model, rewrites, planned/final/expected filters,
relaxations, generations, timings.

``llm_calls`` and ``tokens`` count what the workflow asked for, including replies served from
the cache (LangChain reports those to callbacks like any call); ``cache_hits`` says how many
were. So ``llm_calls - cache_hits`` reached the model, and a fully cached rerun shows them equal.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

from eval.cache import CacheUsage, cache_usage
from eval.corpus import CorpusSpec
from eval.datasets import E2ECase
from eval.metrics import Metric, MetricValue
from selfrag.errors import SelfRagError, describe
from workflows.outcomes import Result

__all__ = ["CaseEngine", "case_contexts", "case_record", "deciding_verdict", "error_text", "run_case", "trace_record"]

_MAX_ERROR = 500


class CaseEngine(Protocol):
    def run(self, question: str, *, collection: str) -> Result: ...


def error_text(exc: BaseException) -> str:
    """``code: message`` on one line (selfrag errors carry a stable code; others their class)."""
    text = f"{exc.code}: {exc.one_line()}" if isinstance(exc, SelfRagError) else describe(exc)
    return text if len(text) <= _MAX_ERROR else text[: _MAX_ERROR - 1] + "…"


def case_contexts(result: Result) -> list[str]:
    """The passages the answer rests on: its cited documents' texts, once each, in citation order.

    The judged metrics (``eval.judged``) read these; a served answer carries the same citations,
    so an engine run and an endpoint run are judged on the same evidence.
    """
    seen: dict[str, str] = {}
    for c in result.citations:
        seen.setdefault(c.id, c.text)
    return list(seen.values())


def deciding_verdict(result: Result) -> str:
    """The one verdict behind the outcome, for the report's table of cases that went wrong.

    The last failed check of the last answer when one failed; otherwise the reader's confidence
    for ``unverified``, the relevance grades for ``abstained``, or the run's stop reason.
    """
    trace = result.trace
    failed = [v for v in trace.verdicts if not v["passed"]]
    if failed:
        v = failed[-1]
        return f"{v['kind']}: {v['label']} ({v['reason']})"[:300]
    if result.outcome.value == "unverified" and result.confidence is not None:
        return f"reader confidence {result.confidence:.2f} below the answering threshold"
    if result.outcome.value == "abstained":
        relevant = sum(1 for d in trace.documents if d["relevant"])
        return f"relevance: {relevant} of {len(trace.documents)} retrieved documents judged relevant"
    return f"stop: {trace.stop_reason}" if trace.stop_reason else (
        f"{trace.verdicts[-1]['kind']}: {trace.verdicts[-1]['label']}" if trace.verdicts else "")


def run_case(
    engine: CaseEngine, case: E2ECase, corpus: CorpusSpec | str, metrics: Sequence[Metric]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one case (``corpus`` is its collection, or the error that prevented building it).

    Never raises for the case's own failure: the error is recorded in both rows.
    """
    result: Result | None = None
    error: str | None = corpus if isinstance(corpus, str) else None
    collection = corpus.collection if isinstance(corpus, CorpusSpec) else case.collection
    start = time.perf_counter()
    with cache_usage() as used:
        if isinstance(corpus, CorpusSpec):
            try:
                result = engine.run(case.question, collection=corpus.collection)
            except Exception as exc:  # recorded; the run goes on
                error = error_text(exc)
    latency = round(time.perf_counter() - start, 4)
    values = {m.name: m.evaluate(case, result) for m in metrics} if result is not None else {}
    return (
        case_record(case, collection, result, values, latency, used, error),
        trace_record(case, collection, result, latency, used, error),
    )


def case_record(
    case: E2ECase,
    collection: str | None,
    result: Result | None,
    values: dict[str, MetricValue],
    latency_s: float,
    usage: CacheUsage,
    error: str | None,
) -> dict[str, Any]:
    """The ``cases.jsonl`` row; metric fields are null when the case raised."""
    row: dict[str, Any] = {
        "id": case.id,
        "question": case.question,
        "collection": collection,
        "split": case.split,
        "reference_answer": case.reference_answer,
        "answer": None if result is None else result.answer,
        "short_answer": None if result is None else result.short_answer,
        "confidence": None if result is None else result.confidence,
        "outcome": None if result is None else result.outcome.value,
        "verdict": None if result is None else deciding_verdict(result),
        "contexts": [] if result is None else case_contexts(result),
    }
    for name in ("answer_exact", "answer_f1", "answer_contains", "answer_correct", "recall_at_4", "mrr", "filter_ok",
                 "grounded"):
        value = values[name].value if name in values else None
        row[name] = None if value is None else round(value, 4)
    extra = {n: v for n, v in values.items() if n not in row}
    row.update({n: None if v.value is None else round(v.value, 4) for n, v in extra.items()})
    row.update(
        latency_s=latency_s,
        llm_calls=None if result is None else result.trace.llm.calls,
        tokens=None if result is None else result.trace.llm.total_tokens,
        cache_hits=usage.hits,
        error=error,
        reasons={n: v.reason for n, v in values.items()},
    )
    return row


def trace_record(
    case: E2ECase,
    collection: str | None,
    result: Result | None,
    latency_s: float,
    usage: CacheUsage,
    error: str | None,
) -> dict[str, Any]:
    """The ``traces.jsonl`` row: what the engine did for the case, from ``Result.trace``."""
    row: dict[str, Any] = {"id": case.id, "collection": collection, "error": error, "latency_s": latency_s,
                           "cache": {"hits": usage.hits, "misses": usage.misses, "tokens_served": usage.cached_tokens}}
    if result is None:
        return row
    trace = result.trace
    plan = {k: v for k, v in trace.plan.items() if k != "where"}
    row.update(
        outcome=result.outcome.value,
        stop_reason=trace.stop_reason,
        path=trace.path,
        timings=trace.timings,
        filter={"expected": case.expected_filter, "planned": trace.plan.get("where"), "final": result.filter},
        relaxations=trace.relaxations,
        rewrites=trace.rewrites,
        # The relevance verdicts ride inside the graded documents; each row says which search text it judged.
        verdicts=[{**d["grade"], "query": d["query"]} for d in trace.documents] + list(trace.verdicts),
        generations=[
            {**{k: v for k, v in g.items() if k != "citations"},
             "citations": [{"number": c["number"], "id": c["id"]} for c in g["citations"]]}
            for g in trace.generations
        ],
        plan=plan,
        budgets=trace.budgets,
        llm=trace.llm.model_dump(),
        total_ms=trace.total_ms,
    )
    return row
