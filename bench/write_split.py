"""Where one document's write and one warm hybrid question spend their time, at one collection size.

Usage:
    .venv/bin/python bench/write_split.py --keep /tmp/wD-scale --size 10000 [--adds 5] [--questions 40]

Opens (or builds, as ``bench/lexical_scale.py --keep`` does) the collection in ``DIR/<size>`` and
times, per one-document write through ``Collection.write_documents``, each Chroma call and each of
our own steps (the stored-chunk lookup, the chunk-id check, the change log, the metadata save),
plus a bare ``collection.upsert`` of one document straight through chromadb: what Chroma itself
costs at this size. Then the warm hybrid question split into its lexical and dense searches.
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lexical_scale as scale  # noqa: E402

Timings = defaultdict[str, list[float]]


def timed(times: Timings, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            times[name].append(time.perf_counter() - start)

    return wrapper


def ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 2) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--adds", type=int, default=5)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    home = args.keep / str(args.size)
    home.mkdir(parents=True, exist_ok=True)
    body = scale.build(home, args.size, args.seed)

    import selfrag.store.collection as collection_module
    from selfrag.retrieval import ChromaChunkSource, HybridRetriever, LexicalIndexes, LexicalRetriever
    from selfrag.store import Chunk, DocumentVersion

    store = scale.open_store(home)
    coll = store.get_collection("scale")
    source = ChromaChunkSource(coll._chroma)
    indexes = LexicalIndexes(home / "lexical")
    indexes.refresh(source)
    times: Timings = defaultdict(list)
    chroma = coll._chroma
    for name in ("add", "upsert", "delete", "modify", "get"):
        setattr(chroma, name, timed(times, f"chroma.{name}", getattr(chroma, name)))
    for name in ("stored_chunks", "check_chunk_ids"):
        setattr(collection_module, name, timed(times, name, getattr(collection_module, name)))
    coll._changed = timed(times, "change log (read + append + save)", coll._changed)  # type: ignore[method-assign]
    total = []
    for a in range(args.adds):
        doc = DocumentVersion(f"split{a}", f"v{time.time()}", tuple(
            Chunk(f"split{a}#{j}", f"{body[a * 7 + j]} splitting{a} {time.time()}", {"year": 2000, "genre": "g1"})
            for j in range(3)))
        start = time.perf_counter()
        coll.write_documents([doc])
        total.append(time.perf_counter() - start)
        indexes.refresh(source)
    write = {"write_documents": ms(total), **{k: ms(v) for k, v in times.items()},
             "calls_per_write": {k: len(v) / args.adds for k, v in times.items()}}
    # Chroma alone: one document (3 chunks) upserted, then added under fresh ids.
    rng = np.random.default_rng(1)
    bare: dict[str, list[float]] = defaultdict(list)
    raw = store._client.get_collection("scale") if hasattr(store, "_client") else chroma
    for a in range(args.adds):
        vectors = scale.unit(rng.standard_normal((3, scale.DIM)))
        for op in ("upsert", "add"):
            ids = [f"bare-{op}{a}-{time.time()}#{j}" for j in range(3)]
            start = time.perf_counter()
            getattr(raw, op)(ids=ids, embeddings=vectors, documents=[body[j] for j in range(3)],
                             metadatas=[{"doc_id": f"bare{a}", "doc_hash": "h", "year": 2000, "genre": "g1"}] * 3)
            bare[op].append(time.perf_counter() - start)
        start = time.perf_counter()
        raw.get(where={"doc_id": {"$in": [f"split{a}"]}}, include=["metadatas"])
        bare["get where doc_id $in"].append(time.perf_counter() - start)
        start = time.perf_counter()
        raw.modify(metadata=dict(raw.metadata or {}))
        bare["modify metadata"].append(time.perf_counter() - start)
    # A warm hybrid question, split.
    lexical = LexicalRetriever(source, indexes)
    hybrid = HybridRetriever(coll, lexical, resource="scale")
    asked = scale.queries(body[:200], args.questions + 1, args.seed)
    hybrid.search(asked[0][0], k=4)
    split: Timings = defaultdict(list)
    index = indexes.get(source)
    for question, _ in asked[1:]:
        for name, fn in (("hybrid", lambda q: hybrid.search(q, k=4)),
                         ("lexical index search (depth 20)", lambda q: index.search(q, 20)),
                         ("lexical retriever (index + read)", lambda q: lexical.search(q, k=20)),
                         ("dense search (depth 20)", lambda q: coll.search(q, k=20))):
            start = time.perf_counter()
            fn(question)
            split[name].append(time.perf_counter() - start)
    out = {"chunks": args.size, "write_ms": write, "bare_chroma_ms": {k: ms(v) for k, v in bare.items()},
           "warm_question_ms": {k: {"p50": ms(v), "p90": round(sorted(v)[int(0.9 * len(v))] * 1000, 2)}
                                for k, v in split.items()}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
