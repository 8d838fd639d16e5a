"""Set answers on the self-query sets (``eval/sets/{homes,hotels,jobs,recipes,clubs}``), end to end.

Each set's records go into a fresh collection with its schema; every question runs through the
real offline engine (trained reader-critic, MiniLM embeddings, rules self-query). For the
questions the engine answers with a listing (``strategy: listing``), every listed document must
satisfy one of the question's ``accept`` filters (the labels say which records answer it): a
listed document that does not is a wrong listing. Also reported: how many of the matching records
the listing shows (it shows at most ``top_k``) and the outcomes of every other question.

    python bench/set_answers.py --out bench/results/set-answers/self-query-sets.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETS = ("homes", "hotels", "jobs", "recipes", "clubs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="selfrag-set-answers-"))
    os.environ["SELFRAG_HOME"] = str(home)
    os.environ.pop("SELFRAG_CONFIG", None)

    from eval.plan_sets import load_plan_set
    from selfrag.ingest import ingest_paths
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from selfrag.testing import matches_where
    from selfrag.values import date_number
    from workflows import RunOptions, SelfRagEngine
    from workflows.factory import build_components, open_store

    cases: list[dict[str, Any]] = []
    try:
        settings = load_settings()
        with open_store(settings, StoreUse("bench/set_answers.py")) as store:
            components = build_components(settings, store=store)
            for name in args.sets.split(","):
                folder = ROOT / "eval" / "sets" / name
                plan_set = load_plan_set(folder)
                target = store.create_collection(name, plan_set.schema_, exist_ok=True)
                ingest_paths(target, [folder / "records.jsonl"])
                dates = {a.name for a in plan_set.schema_.attributes if a.type == "date"}

                def stored(meta: dict[str, Any], dates: set[str] = dates) -> dict[str, Any]:
                    return {k: (date_number(v) if k in dates else v) for k, v in meta.items()}

                engine = SelfRagEngine(components, defaults=RunOptions.from_settings(
                    settings.workflow, provider=settings.llm.provider), today=lambda d=plan_set.today: d)
                for case in plan_set.cases:
                    result = engine.run(case.question, collection=name)
                    gens = result.trace.generations
                    strategy = gens[-1]["strategy"] if gens else None
                    accept = list(case.accept)
                    matching = {r.id for r in plan_set.records
                                if any(a == {} or matches_where(stored(dict(r.metadata)), a) for a in accept)}
                    cited = [c.id for c in result.citations]
                    listed_ok = all(any(a == {} or matches_where(stored(dict(c.metadata)), a) for a in accept)
                                    for c in result.citations)
                    cases.append({"set": name, "id": case.id, "split": case.split, "question": case.question,
                                  "outcome": str(result.outcome), "strategy": strategy, "cited": cited,
                                  "matching": len(matching), "listed_matching": len(set(cited) & matching),
                                  "listing_right": listed_ok if strategy == "listing" else None,
                                  "answer": result.answer})
                    print(f"{case.id:<12} {str(result.outcome):<12} {strategy or '-':<8} "
                          f"{'' if strategy != 'listing' else ('RIGHT' if listed_ok else 'WRONG')} {case.question}",
                          flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    listings = [c for c in cases if c["strategy"] == "listing"]
    head = {
        "questions": len(cases),
        "outcomes": dict(Counter(c["outcome"] for c in cases)),
        "listings": len(listings),
        "listings_answered": sum(c["outcome"] == "answered" for c in listings),
        "listings_wrong": sum(not c["listing_right"] for c in listings),
        "listings_showing_every_match": sum(c["listed_matching"] == c["matching"] for c in listings),
    }
    report = {"command": " ".join(["bench/set_answers.py", *sys.argv[1:]]), "headline": head, "cases": cases}
    print(json.dumps(head, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
