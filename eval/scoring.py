"""Scoring answers made elsewhere: a predictions file or an endpoint's replies become a run
directory like an engine run's (``cases.jsonl``, ``summary.json``, reports, manifest).

The same per-case fields are filled as far as the answers allow: the lexical answer metrics
against the reference, abstention, and (with a judge) the judged metrics. Retrieval metrics
(``recall_at_4``, ``mrr``) and filter accuracy need the engine's trace and stay null; so
``eval compare`` pairs an engine run with an outside system on what both have.
"""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from eval.abstention import abstention_fields
from eval.judged import judge_records
from eval.manifest import build_manifest
from eval.metrics import contains_reference, exact_match, is_correct, normalize_answer, token_f1
from eval.predictions import Prediction, outcome_of
from eval.report import write_reports
from eval.summary import summarize
from selfrag.errors import DatasetError
from selfrag.jsonl import json_objects
from selfrag.reading import Critic
from selfrag.settings import Settings

__all__ = ["add_abstention", "prediction_record", "rejudge_run", "score_predictions", "write_run"]


def prediction_record(p: Prediction) -> dict[str, Any]:
    """A prediction as a ``cases.jsonl`` row (the engine run's fields; what it cannot know is null)."""
    ref = p.reference
    scored = p.error is None and ref is not None and bool(normalize_answer(ref))
    answer = p.short_answer or p.answer  # what exact match and F1 score, as for the engine's answers
    return {
        "id": p.id, "question": p.question, "collection": p.collection, "split": "test", "reference_answer": ref,
        "answer": None if p.error else p.answer, "short_answer": p.short_answer, "confidence": p.confidence,
        "outcome": None if p.error else outcome_of(p), "verdict": p.verdict, "contexts": p.contexts,
        "answerable": p.answerable,
        "answer_exact": round(float(exact_match(answer, ref)), 4) if scored and ref is not None else None,
        "answer_f1": round(token_f1(answer, ref), 4) if scored and ref is not None else None,
        "answer_contains": float(contains_reference(p.answer, ref)) if scored and ref is not None else None,
        "answer_correct": float(is_correct(p.answer, p.short_answer, ref)) if scored and ref is not None else None,
        "recall_at_4": None, "mrr": None, "filter_ok": None, "grounded": None,
        "latency_s": p.latency_s, "llm_calls": None, "tokens": None, "cache_hits": 0, "error": p.error, "reasons": {},
    }  # fmt: skip


def add_abstention(records: Sequence[MutableMapping[str, Any]]) -> None:
    """``abstained`` and ``abstention_ok`` on every row (see ``eval.abstention``)."""
    for row in records:
        flag = row.get("answerable")
        row.update(abstention_fields(row.get("outcome"), row.get("reference_answer"), flag if isinstance(flag, bool) else None))


def write_run(
    out: Path,
    records: list[dict[str, Any]],
    manifest: dict[str, Any],
    *,
    judge: Critic | None = None,
    progress: Callable[[int, int], None] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Judge (when a judge is given) and summarise ``records``; write every file of the run; return the summary."""
    add_abstention(records)
    if judge is not None:
        judge_records(records, judge, progress=progress)
    summary = summarize(records, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records),
                                     encoding="utf-8")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    write_reports(out, summary, records, manifest)
    return summary


def score_predictions(
    predictions: Sequence[Prediction],
    out_dir: str | Path,
    *,
    settings: Settings,
    judge: Critic | None = None,
    judge_info: dict[str, Any] | None = None,
    source: dict[str, Any],
    dataset: str | Path | None = None,
    dataset_sha256: str | None = None,
    command: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Score answers made elsewhere into ``out_dir``; return (summary, records, manifest).

    Args:
        source: what answered, for the manifest: ``{"kind": "predictions", "path": ...}`` or an
            endpoint's ``Endpoint.describe()``.
        judge_info: the judge's manifest entry (``eval.judges.describe_judge``).
    """
    out = Path(out_dir)
    records = [prediction_record(p) for p in predictions]
    manifest = build_manifest(settings, dataset_path=dataset, dataset_sha256=dataset_sha256, cases=len(records),
                              limit=None, concurrency=1, command=command,
                              extra={"answers_from": source, "judged_by": judge_info})
    # Nothing of the engine ran: its models are not the ones behind these answers.
    manifest["models"] = {"answers": source.get("model") or source.get("kind"), "embeddings": None}
    summary = write_run(out, records, manifest, judge=judge, progress=progress)
    return summary, records, manifest


def rejudge_run(
    run_dir: str | Path,
    judge: Critic,
    judge_info: dict[str, Any] | None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Judge a finished run's answers again (another judge, or a run made before judging), in place.

    Raises:
        DatasetError: ``run_dir`` holds no readable ``cases.jsonl`` and ``manifest.json``.
    """
    out = Path(run_dir)
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        text = (out / "cases.jsonl").read_text(encoding="utf-8")
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{out} is not a run directory (manifest.json and cases.jsonl): {exc}") from exc
    records = [row for _, row in json_objects(text, str(out / "cases.jsonl"), DatasetError)]
    manifest["judged_by"] = judge_info
    return write_run(out, records, manifest, judge=judge, progress=progress)
