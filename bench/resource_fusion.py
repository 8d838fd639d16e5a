"""Merging several resources' results: reciprocal rank fusion vs min-max normalised scores.

Usage:
    .venv/bin/python bench/resource_fusion.py [--data DIR] [--rows 1000] [--out bench/results/resource-fusion]

Two scenarios, each question asked of two resources at once, the gold in only one of them:
the project's own sets (``eval/sets/movies.jsonl``, ``filings.jsonl``) asked of both sample
collections, and HaluEval QA dev (``--data``, first ``--rows``) with its passages split into two
collections by row parity. Each resource is searched as the engine searches it
(``workflows.retrieval.RetrievalStage``: hybrid = dense all-MiniLM-L6-v2 + BM25, z-fusion, depth 20;
and dense only), k=4 each, then the lists are merged by ``workflows.resource_retrieval.merge_resources`` with
``rrf`` or ``min_max``. recall@4 and MRR@10 of the merged list; ms = the searches plus the merge.
Writes ``results.json`` and prints a table; the README beside it is written by hand from it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

K = 4
MRR_AT = 10
SAMPLES = ("movies", "filings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SELFRAG_HALUEVAL_DEV", "/work/data/halueval-dev")))
    parser.add_argument("--rows", type=int, default=1000, help="HaluEval dev rows (passages and questions)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/resource-fusion")
    args = parser.parse_args()

    import chromadb

    from eval.datasets import load_documents, load_e2e
    from eval.metrics import is_chunk_of
    from selfrag.providers import LocalEmbeddings
    from selfrag.retrieval import FusedHit, HybridConfig, LexicalIndexes
    from selfrag.samples import ingest_sample
    from selfrag.schema import AttributeInfo, CollectionSchema
    from selfrag.store import Chunk, Store, chroma_settings
    from workflows.resource_retrieval import merge_resources
    from workflows.retrieval import RetrievalStage, chunk_source

    home = Path(tempfile.mkdtemp(prefix="selfrag-resource-fusion-"))
    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=chroma_settings())
    store = Store(client, LocalEmbeddings())
    indexes = LexicalIndexes(home / "lexical", max_age_s=None)
    chunk_files: dict[str, Any] = {}
    for sample in SAMPLES:
        ingest_sample(store, sample)
        chunk_files.update({c.id: c.metadata.get("filename") for c in _read_all(store, sample, indexes, chunk_source)})

    # (set, question, resources asked, is_gold(resource, chunk id))
    cases: list[tuple[str, str, tuple[str, ...], Callable[[str, str], bool]]] = []
    for sample in SAMPLES:
        for c in load_e2e(ROOT / "eval/sets" / f"{sample}.jsonl"):
            if c.gold_ids:
                gold = (lambda s, g: (lambda res, r: res == s and any(is_chunk_of(r, x) for x in g)))(sample, c.gold_ids)
            else:  # filings: chunk ids hash the install path; the gold is named by file
                files = set(c.meta.get("source_files", []))
                gold = (lambda s, f: (lambda res, r: res == s and chunk_files.get(r) in f))(sample, files)
            cases.append((sample, c.question, SAMPLES, gold))
    halves = ("halueval-odd", "halueval-even")
    if (args.data / "documents.jsonl").is_file():
        # HaluEval dev passages split in two collections by row parity: the gold is in one half.
        schema = CollectionSchema(description="HaluEval QA passages", attributes=[AttributeInfo(name="row", type="integer")])
        docs = load_documents(args.data / "documents.jsonl")[: args.rows]
        for n, half in enumerate(halves):
            store.create_collection(half, schema).add(
                [Chunk(d.id, d.text, {"row": int(d.metadata.get("row", 0))}) for i, d in enumerate(docs) if i % 2 == n])
            _read_all(store, half, indexes, chunk_source)
        for c in load_e2e(args.data / "e2e.jsonl")[: args.rows]:
            gold = (lambda g: (lambda res, r: any(is_chunk_of(r, x) for x in g)))(c.gold_ids or [])
            cases.append(("halueval", c.question, halves, gold))

    sides = {"hybrid": RetrievalStage(indexes=indexes, hybrid=HybridConfig()), "dense": RetrievalStage()}
    buckets: dict[str, dict[str, dict[str, list[float]]]] = {}
    for set_name, question, names, gold in cases:
        for side, stage in sides.items():
            start = time.perf_counter()
            lists: list[tuple[str, list[FusedHit]]] = [
                (name, stage.search(store.get_collection(name), name, question, where=None, k=K, min_score=None))
                for name in names
            ]
            search_ms = (time.perf_counter() - start) * 1000
            for fusion in ("rrf", "min_max"):
                start = time.perf_counter()
                ranked = [(h.resource, h.id) for h in merge_resources(lists, fusion)]
                ms = search_ms + (time.perf_counter() - start) * 1000
                hit = 1.0 if any(gold(res, i) for res, i in ranked[:K]) else 0.0
                rr = next((1.0 / n for n, (res, i) in enumerate(ranked[:MRR_AT], 1) if gold(res, i)), 0.0)
                for key in ("all", set_name):
                    b = buckets.setdefault(key, {}).setdefault(f"{side}_{fusion}", {"hit": [], "rr": [], "ms": []})
                    b["hit"].append(hit)
                    b["rr"].append(rr)
                    b["ms"].append(ms)

    def table(by_variant: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
        return {v: {"recall@4": round(statistics.fmean(b["hit"]), 4), "mrr@10": round(statistics.fmean(b["rr"]), 4),
                    "median_ms": round(statistics.median(b["ms"]), 1), "n": len(b["hit"])} for v, b in by_variant.items()}

    report = {
        "command": " ".join(["bench/resource_fusion.py", *sys.argv[1:]]),
        "k_per_resource": K,
        "sets": {name: table(b) for name, b in buckets.items()},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n")
    for name, body in report["sets"].items():  # type: ignore[attr-defined]
        print(f"\n{name}")
        for variant, v in body.items():
            print(f"  {variant:16s} recall@4 {v['recall@4']:.3f}  mrr@10 {v['mrr@10']:.3f}  {v['median_ms']:.1f} ms  n={v['n']}")


def _read_all(store: Any, name: str, indexes: Any, chunk_source: Any) -> list[Any]:
    """Index a collection lexically; return its chunks."""
    source = chunk_source(store.get_collection(name))
    indexes.refresh(source)
    return list(source.read(list(source.versions())))


if __name__ == "__main__":
    main()
