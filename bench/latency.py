"""Per-question latency and LLM calls of the offline default, on the demo questions.

Usage: .venv/bin/python bench/latency.py [--repeat N] [--out bench/out/latency.json]

Runs in a fresh temporary data directory (so ingest is measured too), with the settings the
environment gives (the embedded SmolLM2 + MiniLM by default). Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="passes over the questions")
    parser.add_argument("--out", type=Path, default=Path("bench/out/latency.json"))
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="selfrag-bench-")
    os.environ["SELFRAG_HOME"] = home
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from selfrag.cli.demo import DEMO_QUESTIONS
    from selfrag.samples import ingest_sample
    from selfrag.settings import load_settings
    from workflows.factory import build_engine, open_store

    settings = load_settings()
    t0 = time.perf_counter()
    store = open_store(settings)
    for name in ("movies", "filings"):
        ingest_sample(store, name)
    ingest_s = time.perf_counter() - t0
    engine = build_engine(settings, store=store)
    rows = []
    for rep in range(args.repeat):
        run = uuid.uuid4().hex[:6]
        for collection, question, thread in DEMO_QUESTIONS:
            start = time.perf_counter()
            result = engine.run(question, collection=collection, thread_id=f"{thread}-{run}" if thread else None)
            rows.append({
                "pass": rep, "collection": collection, "question": question,
                "seconds": round(time.perf_counter() - start, 3), "outcome": result.outcome.value,
                "llm_calls": result.trace.llm.calls, "tokens": result.trace.llm.total_tokens,
                "steps": len(result.trace.path), "citations": len(result.citations),
            })
            print(f"{rows[-1]['seconds']:7.2f} s  {rows[-1]['llm_calls']:3d} calls  {rows[-1]['outcome']:<16} {question}")
    secs = [r["seconds"] for r in rows]
    calls = [r["llm_calls"] for r in rows]
    summary = {
        "questions": len(rows),
        "ingest_s": round(ingest_s, 2),
        "latency_mean_s": round(statistics.mean(secs), 2),
        "latency_p50_s": round(statistics.median(secs), 2),
        "latency_max_s": round(max(secs), 2),
        "llm_calls_mean": round(statistics.mean(calls), 2),
        "llm_calls_max": max(calls),
        "outcomes": {o: sum(1 for r in rows if r["outcome"] == o) for o in sorted({r["outcome"] for r in rows})},
        "provider": settings.llm.provider,
    }
    print(json.dumps(summary, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
