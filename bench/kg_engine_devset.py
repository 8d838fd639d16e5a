"""Score the companies dev set through the whole engine (``eval.graph_eval``) and time each question.

Usage: .venv/bin/python bench/kg_engine_devset.py [--url redis://host:port]
                                                  [--out bench/results/kg-devset/engine.json]

The companies sample is ingested into a temporary embedded Chroma (the local MiniLM embeddings, as
``selfrag ingest --sample companies`` does) and its graph loaded into FalkorDB (embedded under the
temporary directory, or ``--url``). The engine runs offline: the self-query in ``rules`` mode and
the graph resolution for real; graders and generation are a scripted model that passes everything,
so the scored part (conditions, entity sets, filters, latest-first, clarification) and its latency
are the engine's own, without a language model's seconds on top (those are in bench/latency.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eval.graph_eval import load_graph_set, score_graph_set  # noqa: E402
from selfrag.kg import GraphContexts, open_graph_store  # noqa: E402
from selfrag.providers import make_embeddings  # noqa: E402
from selfrag.retry import RetryPolicy  # noqa: E402
from selfrag.samples import ingest_sample  # noqa: E402
from selfrag.settings import Settings  # noqa: E402
from selfrag.store import Store  # noqa: E402
from selfrag.testing import ScriptedChatModel, verdict  # noqa: E402
from workflows import Components, RunOptions, SelfRagEngine  # noqa: E402

SET = ROOT / "eval" / "sets" / "companies"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "kg-devset" / "engine.json")
    args = parser.parse_args()
    today = date.fromisoformat(json.loads((SET / "graph-set.json").read_text())["today"])
    rows = load_graph_set(SET)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(home=Path(tmp))
        store = Store.from_settings(settings, make_embeddings(settings.embeddings))
        graphs = GraphContexts(lambda: open_graph_store(Path(tmp), args.url))
        ingest_sample(store, "companies", graph=graphs.store)
        model = ScriptedChatModel.from_rules({
            "RelevanceGrade": verdict("relevant"), "GroundednessGrade": verdict("grounded"),
            "UsefulnessGrade": verdict("useful"), "generate": "An answer [1].",
        })
        components = Components.from_model(model, store, self_query_mode="rules", parallel_checks=False,
                                           retry=RetryPolicy(attempts=1, initial_wait_s=0, max_wait_s=0))
        components.graphs = graphs
        engine = SelfRagEngine(components, defaults=RunOptions(top_k=4), today=lambda: today)
        engine.run("warm-up: latest news about Graphwise", collection="companies")
        score = score_graph_set(engine, rows, collection="companies")
        graphs.close()
        store.close()
    report = {
        "command": " ".join(["bench/kg_engine_devset.py", *sys.argv[1:]]),
        "today": today.isoformat(),
        "dev": score.summary("dev"),
        "heldout": score.summary("heldout"),
        "note": "whole engine runs; self-query rules + real FalkorDB + real Chroma (MiniLM); graders scripted",
        "failures": [{"id": c.id, "split": c.split, "kind": c.kind, "outcome": c.outcome, "wrong": c.wrong}
                     for c in score.cases if not c.exact],
        "cases": [{"id": c.id, "split": c.split, "ms": c.ms, "outcome": c.outcome, "exact": c.exact} for c in score.cases],
    }
    print(json.dumps({k: report[k] for k in ("dev", "heldout")}, indent=1))
    for f in report["failures"]:
        print(f"  FAIL {f['id']} ({f['split']}, {f['kind']}): {json.dumps(f['wrong'], ensure_ascii=False)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
