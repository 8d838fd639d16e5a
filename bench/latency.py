"""Per-question latency and LLM calls of the offline default, on the demo questions.

Usage: .venv/bin/python bench/latency.py [--repeat N] [--out bench/out/latency.json]

Runs in a fresh temporary data directory (so ingest is measured too), with the settings the
environment gives (the embedded SmolLM2 + MiniLM by default); the models are loaded by the
ingest and the first question. Prints a table and writes JSON: per question its seconds, model
calls, prompt and generated tokens and per-node milliseconds; in the summary the median and p95
latency and each node's median.
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
    parser.add_argument("--repeat", type=int, default=3, help="passes over the questions")
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
    # "Model loaded": one untimed question loads every model the configuration calls (llama.cpp
    # loads its weights on the first call), so the first timed question does not pay for it.
    engine.run("Which movie is about dreams?", collection="movies")
    rows = []
    for rep in range(args.repeat):
        run = uuid.uuid4().hex[:6]
        for collection, question, thread in DEMO_QUESTIONS:
            start = time.perf_counter()
            result = engine.run(question, collection=collection, thread_id=f"{thread}-{run}" if thread else None)
            nodes: dict[str, float] = {}
            for t in result.trace.timings:
                nodes[t["node"]] = round(nodes.get(t["node"], 0.0) + t["ms"], 1)
            rows.append({
                "pass": rep, "collection": collection, "question": question,
                "seconds": round(time.perf_counter() - start, 3), "outcome": result.outcome.value,
                "llm_calls": result.trace.llm.calls, "tokens": result.trace.llm.total_tokens,
                "prompt_tokens": result.trace.llm.input_tokens, "generated_tokens": result.trace.llm.output_tokens,
                "steps": len(result.trace.path), "citations": len(result.citations), "nodes_ms": nodes,
                "answer": result.answer,
            })
            print(f"{rows[-1]['seconds']:7.2f} s  {rows[-1]['llm_calls']:3d} calls  {rows[-1]['outcome']:<16} {question}")
    engine.close()
    secs = [r["seconds"] for r in rows]
    calls = [r["llm_calls"] for r in rows]
    summary = {
        "questions": len(rows),
        "ingest_s": round(ingest_s, 2),
        "latency_mean_s": round(statistics.mean(secs), 2),
        "latency_p50_s": round(statistics.median(secs), 2),
        "latency_p95_s": round(statistics.quantiles(secs, n=20, method="inclusive")[-1], 2) if len(secs) > 1 else secs[0],
        "latency_max_s": round(max(secs), 2),
        # Where the time goes: each node's median milliseconds over the questions (0 when a
        # question's path skipped it), and the model's prompt vs generated tokens per question.
        "node_ms_p50": {
            node: round(statistics.median(r["nodes_ms"].get(node, 0.0) for r in rows), 1)
            for node in dict.fromkeys(n for r in rows for n in r["nodes_ms"])
        },
        "prompt_tokens_mean": round(statistics.mean(r["prompt_tokens"] for r in rows), 1),
        "generated_tokens_mean": round(statistics.mean(r["generated_tokens"] for r in rows), 1),
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
