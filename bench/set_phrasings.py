"""Questions in new wordings over the self-query sets (``eval/sets/{hotels,homes,jobs,recipes,clubs}``):
how many does the engine sign (``answered``) and get wrong?

Usage: .venv/bin/python bench/set_phrasings.py --set eval/sets/phrasings-sets-r1.jsonl
                                               --out bench/results/set-phrasings/r1-after.json [--code-root DIR]

Each row names its set and says what a right answer is (``expect``), judged against the set's own
records so that no expected answer is typed by hand:

- ``listing``: every cited record satisfies ``filter``, and at least one is cited;
- ``exists``: "Yes" when some record satisfies ``filter``, else "No";
- ``all``: "Yes" when every record satisfying ``filter`` also satisfies ``then``, else "No";
- ``argmin`` / ``argmax``: the answer names the ``name`` of the record satisfying ``filter`` with
  the least / greatest ``attribute``;
- ``not_signed``: nothing the engine can check answers it: any ``answered`` is a wrong one.

Only ``answered`` is judged; flagged and abstained runs sign nothing. ``--code-root`` runs another
checkout's code (a worktree of an older commit) with this script, for a before/after.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _phrasings import isolated_home, write_report  # noqa: E402


def expected(expect: dict[str, Any], records: list[dict[str, Any]], matches: Any) -> str | None:
    """The right short answer or name for ``expect`` over ``records``; None for listings."""
    kind = expect["kind"]
    chosen = [r for r in records if matches(r, expect.get("filter") or {})]
    if kind == "exists":
        return "Yes" if chosen else "No"
    if kind == "all":
        return "Yes" if chosen and all(matches(r, expect["then"]) for r in chosen) else "No"
    if kind in ("argmin", "argmax"):
        best = (min if kind == "argmin" else max)(chosen, key=lambda r: r[expect["attribute"]])
        return str(best[expect["name"]])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--code-root", type=Path, default=ROOT)
    args = parser.parse_args()
    home = isolated_home("selfrag-set-phrasings-", args.code_root)

    from eval.plan_sets import load_plan_set
    from selfrag.ingest import ingest_paths
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from selfrag.testing import matches_where
    from workflows import RunOptions, SelfRagEngine
    from workflows.factory import build_components, open_store

    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    cases: list[dict[str, Any]] = []
    try:
        settings = load_settings()
        with open_store(settings, StoreUse("bench/set_phrasings.py")) as store:
            components = build_components(settings, store=store)
            engines: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
            for row in rows:
                name = row["set"]
                if name not in engines:
                    folder = ROOT / "eval" / "sets" / name
                    plan_set = load_plan_set(folder)
                    target = store.create_collection(name, plan_set.schema_, exist_ok=True)
                    ingest_paths(target, [folder / "records.jsonl"])
                    engine = SelfRagEngine(components, defaults=RunOptions.from_settings(
                        settings.workflow, provider=settings.llm.provider), today=lambda d=plan_set.today: d)
                    engines[name] = (engine, [dict(r.metadata) for r in plan_set.records])
                engine, records = engines[name]
                expect = row["expect"]
                right = expected(expect, records, matches_where)
                result = engine.run(row["question"], collection=name)
                outcome = str(result.outcome)
                gens = result.trace.generations
                if outcome != "answered":
                    verdict = outcome
                elif expect["kind"] == "listing":
                    cited = [dict(c.metadata) for c in result.citations]
                    verdict = "right" if cited and all(matches_where(m, expect["filter"]) for m in cited) else "wrong"
                elif expect["kind"] in ("exists", "all"):
                    verdict = "right" if (result.short_answer or "").strip().startswith(str(right)) else "wrong"
                elif expect["kind"] in ("argmin", "argmax"):
                    verdict = "right" if str(right).lower() in (result.answer or "").lower() else "wrong"
                else:
                    verdict = "wrong"  # not_signed
                cases.append({**row, "right_answer": right, "outcome": outcome, "judged": verdict,
                              "strategy": gens[-1]["strategy"] if gens else None,
                              "short_answer": result.short_answer, "answer": result.answer, "filter": result.filter})
                print(f"{row['id']} {verdict:<12} {row['question']}", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    write_report(cases, args.out, "bench/set_phrasings.py")

if __name__ == "__main__":
    main()
