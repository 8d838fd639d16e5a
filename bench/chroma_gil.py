"""How long an embedded Chroma write keeps every other Python thread of the process waiting.

Usage: .venv/bin/python bench/chroma_gil.py [--rows 1000] [--repeat 3] [--out bench/results/ingest-speed/chroma-gil.json]

A thread ticks every millisecond (``time.sleep(0.001)`` in a loop) while the main thread adds
``--rows`` chunks (1,000-character texts, 384-d vectors, six metadata keys: what an ingest writes)
to a fresh embedded collection. Reports the add's wall time and the longest gap between ticks:
a gap as long as the add means the add held the GIL throughout (its Rust bindings release it for
reads only), so an encoder in the same process, which needs the GIL between its torch operations,
stands still while Chroma writes.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import chromadb
import numpy as np

from selfrag.store.client import chroma_settings

WORDS = ["revenue", "quarter", "supply", "chain", "risk", "margin", "growth", "customer", "product", "market"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/ingest-speed/chroma-gil.json"))
    args = parser.parse_args()
    rng = random.Random(1)
    texts = [" ".join(rng.choice(WORDS) for _ in range(140))[:1000] for _ in range(args.rows)]
    vectors = np.random.default_rng(0).standard_normal((args.rows, 384)).astype(np.float32)
    metas = [{"doc_id": f"d{i // 3}", "source": f"f/doc{i // 3}.txt", "filename": f"doc{i // 3}.txt", "ext": "txt",
              "doc_hash": "0" * 32, "chunk_index": i % 3} for i in range(args.rows)]
    client = chromadb.PersistentClient(path=tempfile.mkdtemp(prefix="selfrag-gil-"), settings=chroma_settings())
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    time.sleep(0.2)
    runs = []
    for n in range(args.repeat):
        coll = client.create_collection(f"gil{n}")
        start = time.perf_counter()
        coll.add(ids=[f"c{i}" for i in range(args.rows)], embeddings=vectors, documents=texts, metadatas=metas)  # type: ignore[arg-type]
        end = time.perf_counter()
        inside = [t for t in ticks if start <= t <= end]
        gap = float(np.diff([start, *inside, end]).max())
        runs.append({"add_s": round(end - start, 3), "longest_gap_s": round(gap, 3), "ticks": len(inside)})
        print(f"add of {args.rows} rows: {end - start:.3f} s; longest wait of the other thread {gap:.3f} s", flush=True)
    stop.set()
    summary = {"command": "bench/chroma_gil.py " + " ".join(sys.argv[1:]), "rows": args.rows,
               "chromadb": chromadb.__version__, "runs": runs,
               "median_gap_over_add": round(statistics.median(r["longest_gap_s"] / r["add_s"] for r in runs), 3)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
