"""Retrieval quality and cost: dense vs lexical vs hybrid (RRF, min-max, z) vs hybrid + rerank.

Usage:
    .venv/bin/python bench/retrieval_quality.py [--rows 2000] [--rerank-rows 60] [--factor 3]
        [--out bench/results/retrieval-quality]

On the HaluEval QA dev rows (``/work/data/halueval-dev`` or ``$SELFRAG_HALUEVAL_DEV``: one passage
per row, the row's question, its passage the gold) and on the project's own end-to-end sets
(``eval/sets/movies.jsonl``: gold chunk ids; ``filings.jsonl``: gold by file name), each asked with
and without its expected filter. Embeddings are the engine's (all-MiniLM-L6-v2, local), Chroma is
embedded in a temporary directory, the lexical side is ``selfrag.retrieval`` (SQLite FTS5 since
issue 29; bm25s before).

Each question is searched once per retriever to depth 50 (dense and lexical, in alternating order,
timed); fusion variants fuse those lists cut to a depth, so every variant sees the same candidates.
The ``llm`` reranker (the embedded SmolLM2 unless settings say otherwise) reranks the hybrid's top
``k × factor`` on the first ``--rerank-rows`` questions (it costs one model call per candidate).

Metrics: recall@4 (gold passage among the top 4) and MRR@10. For hybrid vs dense, the paired
discordant counts and an exact two-sided binomial (McNemar) p-value on recall@4. Latencies are
medians (and p90) over the questions, milliseconds, on this machine (2 shared cores).
Writes ``results.json`` and prints a table; the README beside it is written by hand from it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

K = 4
MRR_AT = 10
DEPTHS = (4, 10, 20, 50)
FUSIONS = ("rrf", "min_max", "z")


def median_ms(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"median": 0.0, "p90": 0.0, "n": 0}
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered) * 1000, 2),
        "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))] * 1000, 2),
        "n": len(ordered),
    }


class Scorer:
    """recall@4 and MRR@10 per variant, with per-question recall hits kept for paired tests."""

    def __init__(self) -> None:
        self.hits: dict[str, list[float]] = {}
        self.rr: dict[str, list[float]] = {}

    def add(self, variant: str, ranked: Sequence[str], is_gold: Callable[[str], bool]) -> None:
        self.hits.setdefault(variant, []).append(1.0 if any(is_gold(r) for r in ranked[:K]) else 0.0)
        rr = next((1.0 / n for n, r in enumerate(ranked[:MRR_AT], start=1) if is_gold(r)), 0.0)
        self.rr.setdefault(variant, []).append(rr)

    def table(self) -> dict[str, dict[str, float]]:
        return {
            v: {"recall@4": round(statistics.fmean(h), 4), "mrr@10": round(statistics.fmean(self.rr[v]), 4), "n": len(h)}
            for v, h in self.hits.items()
        }

    def paired(self, a: str, b: str) -> dict[str, float]:
        from scipy.stats import binomtest

        wins = sum(1 for x, y in zip(self.hits[a], self.hits[b], strict=True) if x > y)
        losses = sum(1 for x, y in zip(self.hits[a], self.hits[b], strict=True) if x < y)
        p = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
        return {"only_" + a: wins, "only_" + b: losses, "mcnemar_exact_p": round(float(p), 5)}


def run_questions(
    name: str,
    cases: list[tuple[str, dict[str, Any] | None, Callable[[str], bool]]],
    dense: Any,
    lexical: Any,
    reranker: Any,
    rerank_rows: int,
    factor: int,
    scorer: Scorer,
    timings: dict[str, list[float]],
    rerank_scorer: Scorer | None,
) -> None:
    from selfrag.rerank import rerank_hits
    from selfrag.retrieval import DENSE, LEXICAL, HybridConfig, HybridRetriever, RankedList, fuse

    deepest = max(DEPTHS)
    for n, (question, where, is_gold) in enumerate(cases):
        order = ("dense", "lexical") if n % 2 == 0 else ("lexical", "dense")
        found: dict[str, Any] = {}
        for which in order:
            start = time.perf_counter()
            if which == "dense":
                found["dense"] = dense.search(question, where=where, k=deepest)
            else:
                found["lexical"] = lexical.search(question, where=where, k=deepest)
            timings[f"{which}_search_k{deepest}"].append(time.perf_counter() - start)
        start = time.perf_counter()
        dense.search(question, where=where, k=K)
        timings[f"dense_search_k{K}"].append(time.perf_counter() - start)
        start = time.perf_counter()
        lexical.search(question, where=where, k=K * factor)
        timings[f"lexical_search_k{K * factor}"].append(time.perf_counter() - start)

        # The whole hybrid call as the engine would make it (dense and BM25 concurrently, fused).
        start = time.perf_counter()
        HybridRetriever(dense, lexical, resource=name, config=HybridConfig(depth=20)).search(question, where=where, k=K)
        timings["hybrid_rrf_depth20_total"].append(time.perf_counter() - start)

        scorer.add("dense", [h.id for h in found["dense"]], is_gold)
        scorer.add("lexical", [h.id for h in found["lexical"]], is_gold)
        for depth in DEPTHS:
            lists = [
                RankedList(DENSE, name, found["dense"][:depth]),
                RankedList(LEXICAL, name, found["lexical"][:depth]),
            ]
            for method in FUSIONS:
                start = time.perf_counter()
                fused = fuse(lists, method)  # type: ignore[arg-type]
                timings[f"fusion_{method}_depth{depth}"].append(time.perf_counter() - start)
                scorer.add(f"hybrid_{method}_depth{depth}", [h.id for h in fused], is_gold)
        if reranker is not None and rerank_scorer is not None and n < rerank_rows:
            wide = K * factor
            for variant, lists in (
                ("hybrid_rrf", [RankedList(DENSE, name, found["dense"][:wide]), RankedList(LEXICAL, name, found["lexical"][:wide])]),
                ("dense", [RankedList(DENSE, name, found["dense"][:wide])]),
            ):
                candidates = fuse(lists, "rrf", limit=wide)
                rerank_scorer.add(variant, [h.id for h in candidates], is_gold)
                start = time.perf_counter()
                top = rerank_hits(reranker, question, candidates, MRR_AT)
                timings[f"llm_rerank_{wide}_candidates"].append(time.perf_counter() - start)
                rerank_scorer.add(f"{variant}+llm_rerank", [r.hit.id for r in top], is_gold)
        if (n + 1) % 250 == 0:
            print(f"  {name}: {n + 1}/{len(cases)}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000, help="HaluEval dev rows (from row 1)")
    parser.add_argument("--rerank-rows", type=int, default=60, help="questions per set reranked by the llm reranker")
    parser.add_argument("--factor", type=int, default=3, help="rerank candidates = 4 × factor")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SELFRAG_HALUEVAL_DEV", "/work/data/halueval-dev")))
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/retrieval-quality")
    args = parser.parse_args()

    import chromadb

    from eval.datasets import load_documents, load_e2e
    from eval.metrics import is_chunk_of
    from selfrag.providers import LocalEmbeddings, make_chat_model
    from selfrag.rerank import LLMReranker
    from selfrag.retrieval import ChromaChunkSource, LexicalIndexes, LexicalRetriever
    from selfrag.samples import ingest_sample
    from selfrag.schema import AttributeInfo, CollectionSchema
    from selfrag.settings import load_settings
    from selfrag.store import Chunk, Store, chroma_settings

    home = Path(tempfile.mkdtemp(prefix="selfrag-retrieval-bench-"))
    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=chroma_settings())
    store = Store(client, LocalEmbeddings())
    indexes = LexicalIndexes(home / "lexical", max_age_s=None)
    settings = load_settings()
    reranker = LLMReranker(make_chat_model(settings.llm), max_concurrency=1) if args.rerank_rows > 0 else None
    timings: dict[str, list[float]] = collections.defaultdict(list)
    report: dict[str, Any] = {
        "command": " ".join(["bench/retrieval_quality.py", *sys.argv[1:]]),
        "k": K,
        "mrr_at": MRR_AT,
        "factor": args.factor,
        "reranker": {"backend": "llm", "model": settings.llm.provider, "prompt": "rerank-pointwise-1"},
        "sets": {},
    }

    # -- HaluEval QA dev -----------------------------------------------------------------------
    documents = load_documents(args.data / "documents.jsonl")[: args.rows]
    cases = load_e2e(args.data / "e2e.jsonl")[: args.rows]
    schema = CollectionSchema(description="HaluEval QA passages", attributes=[AttributeInfo(name="row", type="integer")])
    halu = store.create_collection("halueval", schema)
    start = time.perf_counter()
    halu.add([Chunk(d.id, d.text, {"row": int(d.metadata.get("row", 0))}) for d in documents])
    embed_s = time.perf_counter() - start
    source = ChromaChunkSource(client.get_collection("halueval"))
    start = time.perf_counter()
    indexes.refresh(source)
    index_s = time.perf_counter() - start
    start = time.perf_counter()
    LexicalIndexes(home / "lexical", max_age_s=None).get(source)  # open the file + check the change log
    reload_s = time.perf_counter() - start
    lexical = LexicalRetriever(source, indexes)
    report["index"] = {
        "chunks": len(documents),
        "embed_and_write_s": round(embed_s, 2),
        "lexical_build_s (first refresh: list versions, read texts, tokenise, index)": round(index_s, 3),
        "lexical_reopen_s (open the file, check the change log)": round(reload_s, 3),
        "file_bytes": sum(p.stat().st_size for p in (home / "lexical").glob("halueval.*")),
    }
    halu_cases = [(c.question, None, (lambda g: (lambda r: any(is_chunk_of(r, x) for x in g)))(c.gold_ids or [])) for c in cases]
    scorer, rerank_scorer = Scorer(), Scorer()
    lexical.search("warm up", k=1)
    run_questions("halueval", halu_cases, halu, lexical, reranker, args.rerank_rows, args.factor, scorer, timings, rerank_scorer)
    report["sets"]["halueval_qa_dev"] = {
        "questions": len(halu_cases),
        "variants": scorer.table(),
        "hybrid_rrf_depth20_vs_dense": scorer.paired("hybrid_rrf_depth20", "dense"),
        "hybrid_min_max_depth20_vs_dense": scorer.paired("hybrid_min_max_depth20", "dense"),
        "rerank_subset": rerank_scorer.table() if reranker else None,
    }

    # -- own sets: movies (gold ids) and filings (gold by file name), with and without filters ----
    for sample in ("movies", "filings"):
        ingest_sample(store, sample)
        src = ChromaChunkSource(client.get_collection(sample))
        indexes.refresh(src)
        own = load_e2e(ROOT / "eval/sets" / f"{sample}.jsonl")
        chunk_files = {chunk.id: chunk.metadata.get("filename") for chunk in src.read(list(src.versions()))}
        collection = store.get_collection(sample)
        for filtered in (False, True):
            rows = []
            for c in own:
                if c.gold_ids:
                    is_gold = (lambda g: (lambda r: any(is_chunk_of(r, x) for x in g)))(c.gold_ids)
                else:  # filings: chunk ids hash the install path; the gold is named by file
                    files = set(c.meta.get("source_files", []))
                    is_gold = (lambda f, cf: (lambda r: cf.get(r) in f))(files, chunk_files)
                where = c.expected_filter if filtered and c.expected_filter else None
                rows.append((c.question, where, is_gold))
            sc, rsc = Scorer(), Scorer()
            run_questions(sample, rows, collection, LexicalRetriever(src, indexes), reranker, args.rerank_rows, args.factor, sc, timings, rsc)
            report["sets"][f"{sample}{'_filtered' if filtered else ''}"] = {
                "questions": len(rows),
                "variants": sc.table(),
                "rerank_subset": rsc.table() if reranker else None,
            }

    report["latency_ms"] = {name: median_ms(values) for name, values in sorted(timings.items())}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n")
    for set_name, body in report["sets"].items():
        print(f"\n{set_name} ({body['questions']} questions)")
        for variant, v in body["variants"].items():
            print(f"  {variant:28s} recall@4 {v['recall@4']:.3f}  mrr@10 {v['mrr@10']:.3f}")
        for variant, v in (body.get("rerank_subset") or {}).items():
            print(f"  [rerank subset] {variant:28s} recall@4 {v['recall@4']:.3f}  mrr@10 {v['mrr@10']:.3f}  n={v['n']}")
    print("\nlatency (ms, median / p90):")
    for name, v in report["latency_ms"].items():
        print(f"  {name:34s} {v['median']:9.2f} {v['p90']:9.2f}  n={v['n']}")


if __name__ == "__main__":
    main()
