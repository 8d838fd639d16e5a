"""Relationship questions in new wordings over the companies sample: how many does the engine sign
(``answered``) and get wrong?

Usage: .venv/bin/python bench/graph_phrasings.py --set eval/sets/companies/phrasings-r2.jsonl
                                                 --out bench/results/graph-phrasings/r2-after.json
                                                 [--code-root DIR]

Each row of a phrasings file is a question with what a right answer is (``expect``):

- ``entities``: the entity set, exactly (the short answer's names);
- ``yes`` / ``no``: the short answer;
- ``documents``: every cited document mentions one of ``organizations_any``;
- ``reference``: the answer contains ``text``;
- ``not_signed``: nothing the engine can check answers it (a relation's complement, a bound the
  graph's edges do not carry, two questions one of which no filter holds): any ``answered`` is a
  wrong one.

Only ``answered`` is judged: a flagged (``unverified``/``ungrounded``) or abstained run signs
nothing, and is counted apart. The engine is the real offline one (as ``bench/kg_engine_answers.py``
builds it). ``--code-root`` runs another checkout's code (a worktree of an older commit) with this
script, for a before/after on the same rows.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _phrasings import isolated_home, write_report  # noqa: E402


def judge(expect: dict[str, Any], outcome: str, short: str, answer: str, citations: list[dict[str, Any]]) -> str:
    """``right``/``wrong`` for an answered run, else the outcome (not judged)."""
    if outcome != "answered":
        return outcome
    kind = expect["kind"]
    if kind == "entities":
        names = sorted(n.strip() for n in short.replace(" and ", ", ").split(",") if n.strip())
        return "right" if names == sorted(expect["names"]) else "wrong"
    if kind in ("yes", "no"):
        return "right" if short.strip().lower().startswith(kind) else "wrong"
    if kind == "documents":
        wanted = set(expect["organizations_any"])
        docs = [c for c in citations if not str(c.get("resource", "")).startswith("graph:")]
        ok = bool(docs) and all(set(c["metadata"].get("organizations") or []) & wanted for c in docs)
        return "right" if ok else "wrong"
    if kind == "reference":
        return "right" if expect["text"].lower() in answer.lower() else "wrong"
    return "wrong"  # not_signed: nothing checkable answers it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--code-root", type=Path, default=ROOT)
    args = parser.parse_args()
    home = isolated_home("selfrag-phrasings-", args.code_root)

    from selfrag.samples import ingest_sample
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows import RunOptions, SelfRagEngine
    from workflows.factory import build_components, open_store

    today = date.fromisoformat(json.loads((ROOT / "eval" / "sets" / "companies" / "graph-set.json").read_text())["today"])
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases: list[dict[str, Any]] = []
    try:
        settings = load_settings()
        with open_store(settings, StoreUse("bench/graph_phrasings.py")) as store:
            components = build_components(settings, store=store)
            ingest_sample(store, "companies", graph=components.graphs.store)
            engine = SelfRagEngine(components, defaults=RunOptions.from_settings(
                settings.workflow, provider=settings.llm.provider), today=lambda: today)
            for row in rows:
                t0 = time.perf_counter()
                result = engine.run(row["question"], collection="companies")
                gens = result.trace.generations
                citations = [{"id": c.id, "resource": c.resource, "metadata": dict(c.metadata)} for c in result.citations]
                verdict = judge(row["expect"], str(result.outcome), result.short_answer or "", result.answer or "", citations)
                cases.append({**row, "outcome": str(result.outcome), "judged": verdict,
                              "strategy": gens[-1]["strategy"] if gens else None, "short_answer": result.short_answer,
                              "answer": result.answer, "cited": [c["id"] for c in citations],
                              "seconds": round(time.perf_counter() - t0, 2)})
                print(f"{row['id']} {verdict:<20} {row['question']}", flush=True)
            components.graphs.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    write_report(cases, args.out, "bench/graph_phrasings.py", today=today.isoformat())

if __name__ == "__main__":
    main()
