"""Lexical ranking alone on HaluEval QA dev: selfrag's FTS5 index against bm25s (the engine before it).

Usage:
    .venv/bin/python bench/lexical_ranking.py [--rows 2000] [--data /work/data/halueval-dev]
        [--out bench/results/lexical-scale/halueval-lexical.json]

No embeddings: each row's question is ranked over the rows' passages by both engines on the same
``lexical_terms`` (bm25s: Lucene BM25, k1 1.5, b 0.75, as ``selfrag.retrieval`` used it; FTS5:
``bm25()``, k1 1.2, b 0.75), and recall@4 / MRR@10 of the gold passage reported as
``bench/retrieval_quality.py`` reports its ``lexical`` row (whose bm25s figures this reproduces).
Also the agreement of the two top 10s. Minutes, where the full quality bench takes an hour.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("SELFRAG_HALUEVAL_DEV", "/work/data/halueval-dev")))
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/lexical-scale/halueval-lexical.json")
    args = parser.parse_args()

    import bm25s

    from eval.datasets import load_documents, load_e2e
    from eval.metrics import is_chunk_of
    from selfrag.retrieval import LexicalEntry, LexicalIndex, lexical_terms

    documents = load_documents(args.data / "documents.jsonl")[: args.rows]
    cases = load_e2e(args.data / "e2e.jsonl")[: args.rows]
    terms = [lexical_terms(d.text) for d in documents]
    ids = [d.id for d in documents]
    index = LexicalIndex(entries=(LexicalEntry(i, "1", tuple(t)) for i, t in zip(ids, terms, strict=True)))
    model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    model.index(terms, create_empty_token=True, show_progress=False)
    vocab = {t: i for t, i in model.vocab_dict.items() if t}

    def bm25s_top(question: str) -> list[str]:
        token_ids = sorted({vocab[t] for t in lexical_terms(question) if t in vocab})
        if not token_ids:
            return []
        scores = model.get_scores_from_ids(token_ids)
        order = np.lexsort((np.arange(len(scores)), -scores))[:10]
        return [ids[int(i)] for i in order if scores[i] > 0]

    found: dict[str, list[float]] = {"fts5": [], "bm25s": []}
    rr: dict[str, list[float]] = {"fts5": [], "bm25s": []}
    overlap = []
    for case in cases:
        gold = case.gold_ids or []

        def is_gold(r: str, gold: list[str] = gold) -> bool:
            return any(is_chunk_of(r, g) for g in gold)

        ranked = {"fts5": [m.id for m in index.search(case.question, 10)], "bm25s": bm25s_top(case.question)}
        for name, ranking in ranked.items():
            found[name].append(1.0 if any(is_gold(r) for r in ranking[:4]) else 0.0)
            rr[name].append(next((1.0 / n for n, r in enumerate(ranking, start=1) if is_gold(r)), 0.0))
        overlap.append(len(set(ranked["fts5"]) & set(ranked["bm25s"])) / max(1, len(ranked["bm25s"])))
    index.close()
    report = {
        "command": " ".join(["bench/lexical_ranking.py", *sys.argv[1:]]),
        "questions": len(cases),
        "fts5": {"recall@4": round(statistics.fmean(found["fts5"]), 4), "mrr@10": round(statistics.fmean(rr["fts5"]), 4)},
        "bm25s": {"recall@4": round(statistics.fmean(found["bm25s"]), 4), "mrr@10": round(statistics.fmean(rr["bm25s"]), 4)},
        "top10_overlap": round(statistics.fmean(overlap), 4),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
