"""From per-case records (the rows of ``cases.jsonl``) to the numbers of ``summary.json``.

Conventions, so a summary can be recomputed from ``cases.jsonl`` alone:

- A case whose run raised (``error`` set) counts in ``cases`` and ``errors`` and nowhere else:
  its metrics are unknown, not zero. A run with errors is flagged in the report instead.
- Each metric is averaged over the cases where it is not null, and reports how many that was
  (``n``). A metric no case could be scored on is null.
- 0/1 metrics are rates with a Wilson interval; graded ones (F1, recall, MRR) are means with a
  seeded percentile-bootstrap interval. Every interval is ``{"value", "ci_low", "ci_high", "n"}``.
- Outcome rates are over the cases that finished; every outcome is always listed.
- ``wrong_among_answered`` is the share of ``answered`` cases with a reference whose answer is not
  right (``answer_correct`` false): what a client trusting ``answered`` would get wrong.
- Judged metrics (``eval.judged``) and abstention (``eval.abstention``) follow the same rules;
  ``risk_coverage`` is the curve of ``eval.abstention.risk_coverage`` on ``judged_correct`` when
  the run was judged, else on ``answer_correct``.
- Latency percentiles, calls and tokens per case are over the cases that finished. ``llm_calls``
  and ``tokens`` count what the workflow asked for, served from the cache or not; ``cache``
  says how much of it the cache served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.abstention import risk_coverage
from eval.stats import Interval, mean_interval, percentile, rate_interval, wilson
from workflows.outcomes import Outcome

__all__ = ["MEAN_METRICS", "RATE_METRICS", "summarize"]

RATE_METRICS = {
    "answer_exact": "answer_exact",
    "answer_contains": "answer_contains",
    "answer_correct": "answer_correct",
    "filter_accuracy": "filter_ok",
    "groundedness_rate": "grounded",
    "judged_correct": "judged_correct",
    "abstention_accuracy": "abstention_ok",
    "abstain_rate": "abstained",
}
"""Summary key → per-case field, for 0/1 metrics (Wilson intervals)."""

MEAN_METRICS = {
    "answer_f1": "answer_f1", "recall_at_4": "recall_at_4", "mrr": "mrr", "faithfulness": "faithfulness",
    "context_precision": "context_precision", "context_recall": "context_recall", "answer_relevancy": "answer_relevancy",
}
"""Summary key → per-case field, for graded metrics (bootstrap intervals)."""


def _dict(interval: Interval | None) -> dict[str, float | int] | None:
    return None if interval is None else interval.to_dict()


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize(records: Sequence[Mapping[str, Any]], *, seed: int = 0) -> dict[str, Any]:
    """The ``summary.json`` of a run's records (see the module docstring for the conventions)."""
    done = [r for r in records if not r.get("error")]
    summary: dict[str, Any] = {"cases": len(records), "errors": len(records) - len(done)}
    for key, field in MEAN_METRICS.items():
        summary[key] = _dict(mean_interval((r.get(field) for r in done), seed=seed))
    for key, field in RATE_METRICS.items():
        summary[key] = _dict(rate_interval(r.get(field) for r in done))
    outcomes = {o.value: sum(1 for r in done if r.get("outcome") == o.value) for o in Outcome}
    summary["outcomes"] = outcomes
    answered = [r for r in done if r.get("outcome") == Outcome.ANSWERED.value and r.get("answer_correct") is not None]
    summary["wrong_among_answered"] = _dict(rate_interval(1.0 - float(r["answer_correct"]) for r in answered))
    judged = any(r.get("judged_correct") is not None for r in done)
    summary["risk_coverage"] = risk_coverage(done, "judged_correct" if judged else "answer_correct")
    summary["outcome_rates"] = {k: (_dict(wilson(v, len(done))) if done else None) for k, v in outcomes.items()}
    latencies = [float(r["latency_s"]) for r in done if r.get("latency_s") is not None]
    summary["latency_p50_s"] = round(percentile(latencies, 50), 4) if latencies else None
    summary["latency_p95_s"] = round(percentile(latencies, 95), 4) if latencies else None
    summary["latency_mean_s"] = _mean(latencies)
    summary["llm_calls_per_case"] = _mean([float(r["llm_calls"]) for r in done if r.get("llm_calls") is not None])
    summary["tokens_per_case"] = _mean([float(r["tokens"]) for r in done if r.get("tokens") is not None])
    # Of the finished cases' calls: how many the cache served, how many reached the model.
    hits = sum(int(r.get("cache_hits") or 0) for r in done)
    calls = sum(int(r.get("llm_calls") or 0) for r in done)
    summary["cache"] = {"hits": hits, "model_calls": max(0, calls - hits)}
    return summary
