"""Held-out answer sets: every question through the engine, scored per question kind.

Usage:
    .venv/bin/python bench/heldout_answers.py --set eval/sets/heldout-leaflets --set eval/sets/heldout-statistics \
        --out bench/results/heldout/before.json [--config overrides.toml] [--keep-runs runs/heldout]

Each ``--set`` folder holds ``questions.jsonl`` (``eval.datasets.E2ECase`` lines whose
``documents_file`` is the folder's ``documents.jsonl``) with ``meta.kind`` (factoid, why, how,
yesno, comparison, two_doc, unanswerable) and ``meta.accept``. The sets are **held out**: report
them once per candidate; never tune or pick thresholds on them (see each folder's README).

Runs in a fresh temporary ``SELFRAG_HOME`` (so the default offline settings apply, no config file,
no existing collections) through ``eval.runner.run_eval``, the machinery of ``selfrag eval run``:
it ingests each set's documents into the set's collection and runs every case with the configured
engine (``eval.runner.default_engine``), no LLM cache. ``--config`` overrides settings as in
``selfrag eval run``. The run directories (cases, traces, reports) are discarded unless
``--keep-runs`` names where to keep them. The code evaluated is this script's checkout (its
parent folder goes first on ``sys.path``), so a copy of the script in another checkout scores
that checkout's engine; ``code_root`` and ``--note`` in the JSON say which.

Scoring, per case (the text scored is the result's ``short_answer`` when the engine gives one,
else its ``answer``; for why/how questions always the whole ``answer``, whose quote states the
reason or the steps):

- **answered**: the outcome is ``answered``.
- **right**: for an answerable case, the text contains the reference or one of ``meta.accept``
  (``eval.metrics.contains_reference``: SQuAD normalisation, citation markers removed, whole
  tokens); for ``yesno``, its first normalised word is the reference (``yes``/``no``); for an
  unanswerable case (``meta.answerable`` false), the outcome is anything but ``answered``.
- **wrong among answered**: answered but not right (for unanswerable cases: every answered one).

Per kind and overall: cases, answered, right, wrong among answered; ``wrong_answered_rate`` is
wrong among answered / answered, ``right_answerable_rate`` right / answerable cases. A comparison
whose candidates are both named in the question, or an answer quoting both figures, passes the
contains test whichever side it picks: read those cases' answers in the JSON before trusting a gain.
Writes JSON (per set and for all sets: the tables and every case's outcome, answer and short
answer) and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

KINDS = ("factoid", "why", "how", "yesno", "comparison", "two_doc", "unanswerable")


def _config(path: Path | None) -> dict[str, Any]:
    """Settings overrides from a TOML or JSON file (same shape as config.toml), as ``selfrag eval run``."""
    if path is None:
        return {}
    text = path.read_text(encoding="utf-8")
    data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    if not isinstance(data, dict):
        raise SystemExit(f"config {path} must hold a table of settings")
    return data


class _Recorder:
    """Wraps the engine ``run_eval`` builds, keeping each result's ``short_answer`` (if the engine gives one)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.components = getattr(engine, "components", None)  # run_eval reads the model label from it
        self.short: dict[tuple[str, str], str | None] = {}

    def run(self, question: str, *, collection: str, thread_id: str | None = None, options: Any = None) -> Any:
        result = self.engine.run(question, collection=collection, thread_id=thread_id, options=options)
        short = getattr(result, "short_answer", None)
        self.short[(collection, question)] = short if isinstance(short, str) and short.strip() else None
        return result

    def close(self) -> None:
        close = getattr(self.engine, "close", None)
        if callable(close):
            close()


def score_case(case: Any, outcome: str | None, text: str | None) -> bool:
    """Whether ``text`` (with ``outcome``) is a right answer to ``case`` (see the module docstring)."""
    from eval.metrics import contains_reference, normalize_answer, strip_citations

    if not case.meta.get("answerable", case.reference_answer is not None):
        return outcome != "answered"
    if not text or case.reference_answer is None:
        return False
    if case.meta.get("kind") == "yesno":
        words = normalize_answer(strip_citations(text)).split()
        return bool(words) and words[0] == normalize_answer(case.reference_answer)
    return any(contains_reference(text, ref) for ref in [case.reference_answer, *case.meta.get("accept", [])])


def tally(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Cases, answered, right, wrong among answered, and the two rates, over ``rows``."""
    rows = list(rows)
    answered = sum(r["answered"] for r in rows)
    right = sum(r["right"] for r in rows)
    wrong = sum(r["answered"] and not r["right"] for r in rows)
    answerable = [r for r in rows if r["answerable"]]
    right_answerable = sum(r["right"] for r in answerable)
    return {
        "cases": len(rows),
        "answered": answered,
        "right": right,
        "wrong_answered": wrong,
        "errors": sum(r["error"] is not None for r in rows),
        "wrong_answered_rate": round(wrong / answered, 4) if answered else None,
        "right_answerable_rate": round(right_answerable / len(answerable), 4) if answerable else None,
    }


def tables(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    kinds += sorted({r["kind"] for r in rows} - set(kinds))
    return {"kinds": {k: tally(r for r in rows if r["kind"] == k) for k in kinds}, "overall": tally(rows)}


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def render(title: str, table: dict[str, Any]) -> str:
    head = f"{'kind':<14}{'cases':>6}{'answered':>10}{'right':>7}{'wrong/ans':>11}{'wrong rate':>12}{'right/answerable':>18}"
    lines = [title, head, "-" * len(head)]
    for kind, t in [*table["kinds"].items(), ("overall", table["overall"])]:
        if kind == "overall":
            lines.append("-" * len(head))
        lines.append(f"{kind:<14}{t['cases']:>6}{t['answered']:>10}{t['right']:>7}{t['wrong_answered']:>11}"
                     f"{_rate(t['wrong_answered_rate']):>12}{_rate(t['right_answerable_rate']):>18}")
    return "\n".join(lines)


def run_set(folder: Path, settings: Any, store: Any, run_dir: Path, concurrency: int) -> dict[str, Any]:
    """Ingest ``folder``'s documents, run its questions, and score them."""
    from eval.datasets import load_e2e
    from eval.runner import default_engine, run_eval

    dataset = folder / "questions.jsonl"
    cases = load_e2e(dataset)
    recorders: list[_Recorder] = []

    def factory(settings: Any, store: Any, cache: Any) -> _Recorder:
        recorders.append(_Recorder(default_engine(settings, store, cache)))
        return recorders[-1]

    started = time.perf_counter()
    run = run_eval(cases, settings, run_dir, concurrency=concurrency, cache=None, engine_factory=factory,
                   store=store, dataset=dataset, command=sys.argv)
    seconds = round(time.perf_counter() - started, 1)
    short = recorders[0].short if recorders else {}
    by_id = {r["id"]: r for r in run.records}
    rows = []
    for case in cases:
        record = by_id[case.id]
        answer, outcome = record.get("answer"), record.get("outcome")
        short_answer = short.get((str(record.get("collection")), case.question))
        whole = str(case.meta.get("kind")) in ("why", "how") or short_answer is None
        right = score_case(case, outcome, answer if whole else short_answer)
        rows.append({
            "id": case.id,
            "kind": str(case.meta.get("kind", "?")),
            "question": case.question,
            "reference": case.reference_answer,
            "accept": case.meta.get("accept", []),
            "answerable": bool(case.meta.get("answerable", case.reference_answer is not None)),
            "outcome": outcome,
            "answered": outcome == "answered",
            "right": right,
            "answer": answer,
            "short_answer": short_answer,
            # the full answer scored the same way, so a short answer's effect can be read apart
            "right_full_answer": score_case(case, outcome, answer),
            "latency_s": record.get("latency_s"),
            "error": record.get("error"),
        })
    return {
        "set": folder.name,
        "path": str(folder),
        "seconds": seconds,
        "model": run.manifest.get("model"),
        **tables(rows),
        "cases": rows,
        "manifest": {k: run.manifest.get(k) for k in ("created", "git", "packages", "python", "dataset", "settings")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", type=Path, action="append", required=True,
                        help="a held-out set folder (questions.jsonl + documents.jsonl); repeatable")
    parser.add_argument("--out", type=Path, default=Path("bench/results/heldout/heldout.json"))
    parser.add_argument("--config", type=Path, help="settings overrides (TOML or JSON), as `selfrag eval run --config`")
    parser.add_argument("--concurrency", type=int, default=1, help="cases in flight at once")
    parser.add_argument("--keep-runs", type=Path, help="keep each set's run directory (cases, traces, reports) here")
    parser.add_argument("--note", default="", help="free text stored in the JSON (e.g. which code was run)")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="selfrag-heldout-"))
    os.environ["SELFRAG_HOME"] = str(home)  # before settings are read: defaults, no config file, empty store
    os.environ.pop("SELFRAG_CONFIG", None)

    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows.factory import open_store

    try:
        settings = load_settings(**_config(args.config))
        results = []
        with open_store(settings, StoreUse("bench/heldout_answers.py")) as store:
            for folder in args.sets:
                run_dir = (args.keep_runs / folder.name) if args.keep_runs else home / "runs" / folder.name
                result = run_set(folder, settings, store, run_dir, args.concurrency)
                results.append(result)
                print(render(f"\n{result['set']}: {result['overall']['cases']} cases, {result['seconds']} s",
                             result), flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    every = [row for r in results for row in r["cases"]]
    combined = tables(every)
    if len(results) > 1:
        print(render(f"\nall sets: {len(every)} cases", combined))
    summary = {
        "sets": [r["set"] for r in results],
        "note": args.note,
        "code_root": str(ROOT),
        "provider": settings.llm.provider,
        "answer_strategy": settings.workflow.answer_strategy,
        **combined,
        "per_set": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
