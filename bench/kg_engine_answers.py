"""Score the engine's *answers* on the companies dev set, end to end with the real offline engine.

Usage: .venv/bin/python bench/kg_engine_answers.py [--split dev] [--only c01,c08]
                                                   [--out bench/results/kg-devset/engine-answers.json]

The sibling of bench/kg_engine_devset.py (which scripts the graders to time the graph part): here
nothing is scripted. A fresh temporary ``SELFRAG_HOME`` gives the default offline settings; the
engine is built as ``selfrag eval run`` builds it (``workflows.factory.build_components``: the
trained reader/critic, the local MiniLM embeddings, the rules self-query, the graph filter in an
embedded FalkorDB under the temporary home) and the companies sample ingested into it, with the
set's ``today``. Each row is read against its reference answer by ``eval.graph_answers``: entity set
right?, outcome, answer, cited article ids, correct?, and the headline among rows whose entity set
is right (answered right / answered wrong, which must be 0 / flagged / abstained). Only annotated
rows run (every ``dev`` row; the held-out rows are reported once, at the end of a piece of work).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

SET = ROOT / "eval" / "sets" / "companies"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev", choices=["dev", "heldout"])
    parser.add_argument("--only", default="", help="comma-separated row ids (a quick look; not for the committed JSON)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "kg-devset" / "engine-answers.json")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="selfrag-kg-answers-"))
    os.environ["SELFRAG_HOME"] = str(home)  # before settings are read: defaults, no config file, empty store
    os.environ.pop("SELFRAG_CONFIG", None)

    from eval.graph_answers import headline, judge_answer
    from eval.graph_eval import load_graph_set
    from selfrag.samples import ingest_sample
    from selfrag.settings import load_settings
    from selfrag.store import StoreUse
    from workflows import RunOptions, SelfRagEngine
    from workflows.factory import build_components, open_store

    today = date.fromisoformat(json.loads((SET / "graph-set.json").read_text())["today"])
    only = {i for i in args.only.split(",") if i}
    rows = [r for r in load_graph_set(SET) if r.split == args.split and r.annotated and (not only or r.id in only)]
    cases, rows_out = [], []
    try:
        settings = load_settings()
        with open_store(settings, StoreUse("bench/kg_engine_answers.py")) as store:
            components = build_components(settings, store=store)
            ingest_sample(store, "companies", graph=components.graphs.store)
            engine = SelfRagEngine(components, defaults=RunOptions.from_settings(
                settings.workflow, provider=settings.llm.provider), today=lambda: today)
            engine.run("warm-up: latest news about Graphwise", collection="companies")
            for row in rows:
                t0 = time.perf_counter()
                result = engine.run(row.question, collection="companies")
                seconds = round(time.perf_counter() - t0, 2)
                case = judge_answer(row, result)
                cases.append(case)
                graded = [{"id": d["id"], "relevant": d["relevant"], "score": d["grade"]["score"]}
                          for d in result.trace.documents]
                checks = [{"kind": v["kind"], "passed": v["passed"], "score": v["score"], "reason": v["reason"]}
                          for v in result.trace.verdicts]
                rows_out.append({**case.__dict__, "seconds": seconds, "confidence": result.confidence,
                                 "stop_reason": result.trace.stop_reason, "judge": result.trace.judge,
                                 "path": result.trace.path, "query": result.query.get("query"),
                                 "filter": result.filter, "relaxations": result.trace.relaxations,
                                 "graded": graded, "checks": checks})
                print(f"{row.id} {'set-ok ' if case.entity_set_right else 'set-BAD'} {case.outcome:<20} "
                      f"{'RIGHT' if case.correct else 'wrong'} {case.cited} {case.reason}", flush=True)
            components.graphs.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    head = headline(cases)
    report = {
        "command": " ".join(["bench/kg_engine_answers.py", *sys.argv[1:]]),
        "today": today.isoformat(),
        "split": args.split,
        "provider": settings.llm.provider,
        "answer_strategy": settings.workflow.answer_strategy,
        "headline": head,
        "note": "real offline engine: trained reader/critic, MiniLM embeddings, rules self-query, embedded FalkorDB",
        "cases": rows_out,
    }
    print(json.dumps(head, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
