"""Filtered top-k at 100,000 chunks: selfrag's ``Collection.search`` against an exact numpy scan.

Usage: .venv/bin/python bench/filtered_retrieval.py [--chunks 100000] [--queries 40] [--repeat 3]
                                                    [--out bench/results/filtered-retrieval/retrieval.json]

Builds, for each of two vector distributions, an embedded Chroma collection through selfrag's
``Store`` (so the collection gets whatever index parameters selfrag gives it) holding ``--chunks``
384-d unit vectors with ``year`` / ``genre`` / ``rating`` metadata:

- *uniform*: isotropic random directions (the easy case for HNSW);
- *clustered*: 200 centres, noise of norm 0.7 around them (a chunk's cosine to its centre ≈ 0.8); queries near the centres (like real
  embeddings, where a query sits inside a dense neighbourhood of similar chunks).

For each, queries run under four filters: none, *broad* (~6 % of the chunks), *selective*
(~0.3 %) and a *rating* ladder (0.2 % to 10 %, the mid-size filters) used to locate the crossover
between scoring a filter's candidates exactly and asking the approximate index. Each query is
timed through selfrag, through *before* (selfrag's search path before issue 12, replayed here:
``count()``, then one Chroma query with the filter and ``n_results=k``), through the bare Chroma
query (unfiltered only: what selfrag adds on top), and exactly with numpy on the same vectors; the
variants are interleaved query by query, so ``selfrag_over_before`` is a ratio under the same load.
Recall@4 (of selfrag and of *before*) is against the exact top 4. For filters matching at most
``--crossover-max`` chunks, the two ways of searching a resolved id set (exact scoring, the
id-restricted index query) are also timed apart, which places ``store.exact_search_limit``.
The column cache a long-lived process keeps (``selfrag/store/_column_cache.py``) is built before
the timings and its build time reported.
Vectors are added straight to Chroma (this bench is about search; ``ingest_speed.py`` measures writes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DIM = 384
GENRES = [f"genre{i:02d}" for i in range(20)]
YEARS = (1950, 2025)


class QueryTable(Embeddings):
    """Embeddings for the bench: a query text ``q<n>`` maps to the n-th prepared query vector."""

    def __init__(self, queries: np.ndarray) -> None:
        self.queries = queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("the bench writes vectors directly")

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.queries[int(text[1:])]]


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def make_vectors(kind: str, n: int, queries: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if kind == "uniform":
        return unit(rng.standard_normal((n, DIM))), unit(rng.standard_normal((queries, DIM)))
    centres = unit(rng.standard_normal((200, DIM)))
    which = rng.integers(0, len(centres), n)
    data = unit(centres[which] + 0.7 * rng.standard_normal((n, DIM)) / np.sqrt(DIM))
    q_centres = centres[rng.integers(0, len(centres), queries)]
    return data, unit(q_centres + 0.7 * rng.standard_normal((queries, DIM)) / np.sqrt(DIM))


def make_metadata(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "year": rng.integers(YEARS[0], YEARS[1], n),
        "genre": rng.integers(0, len(GENRES), n),
        "rating": np.round(rng.uniform(0.0, 10.0, n), 3),
    }


def filters(meta: dict[str, np.ndarray]) -> dict[str, tuple[dict[str, Any] | None, np.ndarray]]:
    """name → (Chroma where, boolean mask of the chunks it matches)."""
    n = len(meta["year"])
    out: dict[str, tuple[dict[str, Any] | None, np.ndarray]] = {
        "none": (None, np.ones(n, dtype=bool)),
        "broad": ({"$and": [{"year": {"$gte": 2000}}, {"year": {"$lte": 2004}}]},
                  (meta["year"] >= 2000) & (meta["year"] <= 2004)),
        "selective": ({"$and": [{"genre": {"$eq": GENRES[3]}}, {"year": {"$gte": 2020}}]},
                      (meta["genre"] == 3) & (meta["year"] >= 2020)),
    }
    for share in (0.002, 0.005, 0.01, 0.02, 0.03, 0.1):
        threshold = round(10.0 * (1 - share), 3)
        out[f"rating>={threshold}"] = ({"rating": {"$gte": threshold}}, meta["rating"] >= threshold)
    return out


def build(store: Any, name: str, data: np.ndarray, meta: dict[str, np.ndarray]) -> Any:
    from selfrag.schema import AttributeInfo, CollectionSchema

    schema = CollectionSchema(attributes=[
        AttributeInfo(name="year", type="integer"), AttributeInfo(name="genre", type="string"),
        AttributeInfo(name="rating", type="float"),
    ])
    coll = store.create_collection(name, schema)
    step = 5000
    for start in range(0, len(data), step):
        end = min(start + step, len(data))
        coll._chroma.add(
            ids=[f"c{i}" for i in range(start, end)],
            embeddings=data[start:end],
            documents=[f"chunk {i}" for i in range(start, end)],
            metadatas=[
                {"year": int(meta["year"][i]), "genre": GENRES[int(meta["genre"][i])], "rating": float(meta["rating"][i])}
                for i in range(start, end)
            ],
        )
    return coll


def exact_top(data: np.ndarray, mask_idx: np.ndarray, q: np.ndarray, k: int) -> list[str]:
    scores = (data @ q) if len(mask_idx) == len(data) else data[mask_idx] @ q
    kk = min(k, len(scores))
    top = np.argpartition(-scores, kk - 1)[:kk]
    top = top[np.argsort(-scores[top])]
    return [f"c{int(i)}" for i in mask_idx[top]]


def search_before(chroma: Any, q: np.ndarray, where: dict[str, Any] | None, k: int) -> list[str]:
    """selfrag's ``Collection.search`` before issue 12 (commit 250c74b^): ``count()`` on every call,
    then one Chroma query with the filter, ``n_results=min(k, count)``, documents and metadata included."""
    size = chroma.count()
    if size == 0:
        return []
    result = chroma.query(query_embeddings=[q.tolist()], n_results=min(k, size), where=where,
                          include=["documents", "metadatas", "distances"])
    return list(result["ids"][0])


def p50_ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the queries (timings only)")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--crossover-max", type=int, default=12_000,
                        help="time the exact and the index path apart for filters matching at most this many")
    parser.add_argument("--out", type=Path, default=Path("bench/results/filtered-retrieval/retrieval.json"))
    args = parser.parse_args()

    import chromadb

    from selfrag.store import Store
    from selfrag.store.client import chroma_settings

    rng = np.random.default_rng(12)
    meta = make_metadata(args.chunks, rng)
    work = Path(tempfile.mkdtemp(prefix="selfrag-retrieval-bench-"))
    report: dict[str, Any] = {"command": "bench/filtered_retrieval.py " + " ".join(sys.argv[1:]),
                              "chunks": args.chunks, "queries": args.queries, "k": args.k, "sets": {}}
    try:
        for kind in ("uniform", "clustered"):
            data, queries = make_vectors(kind, args.chunks, args.queries, rng)
            path = work / kind
            client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
            store = Store(client, QueryTable(queries))
            t0 = time.perf_counter()
            build(store, "bench", data, meta)
            build_s = time.perf_counter() - t0
            store.close()
            # A fresh client, as a restarted process would open it (index parameters load then).
            client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
            store = Store(client, QueryTable(queries))
            coll = store.get_collection("bench")
            coll.search("q0", k=args.k)  # load the index outside the timings
            # The column cache a long-lived process keeps (built in the background after the first
            # filtered search, or after a write); built here in the foreground, outside the timings.
            cache_build_s = None
            if coll._columns is not None:
                t0 = time.perf_counter()
                assert coll._columns.build() is not None
                cache_build_s = round(time.perf_counter() - t0, 2)
            rows: dict[str, Any] = {}
            for fname, (where, mask) in filters(meta).items():
                idx = np.flatnonzero(mask)
                t_self: list[float] = []
                t_exact: list[float] = []
                t_bare: list[float] = []
                t_before: list[float] = []
                recalls: list[float] = []
                recalls_before: list[float] = []
                for rep in range(args.repeat):
                    for qi in range(args.queries):
                        q = queries[qi]
                        # selfrag and the bare query alternate which goes first; the exact scan
                        # (which streams the whole matrix through the caches) always comes last.
                        steps = ["selfrag", "before", "bare"] if where is None else ["selfrag", "before"]
                        for step in steps if (rep + qi) % 2 == 0 else steps[::-1]:
                            t = time.perf_counter()
                            if step == "selfrag":
                                hits = coll.search(f"q{qi}", where=where, k=args.k)
                                t_self.append(time.perf_counter() - t)
                            elif step == "before":
                                old_ids = search_before(coll._chroma, q, where, args.k)
                                t_before.append(time.perf_counter() - t)
                            else:
                                coll._chroma.query(query_embeddings=[q.tolist()], n_results=args.k,
                                                   include=["documents", "metadatas", "distances"])
                                t_bare.append(time.perf_counter() - t)
                        t = time.perf_counter()
                        truth = exact_top(data, idx, q, args.k)
                        t_exact.append(time.perf_counter() - t)
                        if rep == 0:
                            got = {h.id for h in hits}
                            recalls.append(len(got & set(truth)) / len(truth))
                            recalls_before.append(len(set(old_ids) & set(truth)) / len(truth))
                # The two ways to search a resolved id set, timed apart, to place the crossover
                # (``store.exact_search_limit``) where exact scoring stops being the faster one.
                paths: dict[str, Any] = {}
                if where is not None and int(mask.sum()) <= args.crossover_max:
                    ids = [f"c{int(i)}" for i in idx]
                    t_ex: list[float] = []
                    t_ix: list[float] = []
                    rec_ix: list[float] = []
                    for qi in range(args.queries):
                        q = queries[qi]
                        truth = exact_top(data, idx, q, args.k)
                        for step in ("exact", "index") if qi % 2 == 0 else ("index", "exact"):
                            t = time.perf_counter()
                            if step == "exact":
                                coll._exact_search(q.tolist(), ids, args.k)
                                t_ex.append(time.perf_counter() - t)
                            else:
                                got_ix = coll._index_search(q.tolist(), args.k, ids=ids)
                                t_ix.append(time.perf_counter() - t)
                                rec_ix.append(len({h.id for h in got_ix} & set(truth)) / len(truth))
                    paths = {"exact_path_p50_ms": p50_ms(t_ex), "index_path_p50_ms": p50_ms(t_ix),
                             "index_path_recall": round(float(np.mean(rec_ix)), 4)}
                row = {
                    "matches": int(mask.sum()),
                    "recall_at_k_mean": round(float(np.mean(recalls)), 4),
                    "recall_at_k_min": round(float(np.min(recalls)), 4),
                    "selfrag_p50_ms": p50_ms(t_self), "exact_numpy_p50_ms": p50_ms(t_exact),
                    "before_recall_at_k_mean": round(float(np.mean(recalls_before)), 4),
                    "before_p50_ms": p50_ms(t_before),
                    "selfrag_over_before": round(statistics.median(t_self) / statistics.median(t_before), 3),
                }
                row.update(paths)
                if t_bare:
                    row["bare_chroma_p50_ms"] = p50_ms(t_bare)
                    row["selfrag_over_bare"] = round(statistics.median(t_self) / statistics.median(t_bare), 3)
                rows[fname] = row
                print(f"{kind:9s} {fname:16s} matches {row['matches']:6d}  recall@{args.k} {row['recall_at_k_mean']:.3f} "
                      f"(min {row['recall_at_k_min']:.2f})  selfrag {row['selfrag_p50_ms']:8.2f} ms  "
                      f"exact {row['exact_numpy_p50_ms']:6.2f} ms  before {row['before_p50_ms']:8.2f} ms "
                      f"(recall {row['before_recall_at_k_mean']:.3f}, selfrag/before {row['selfrag_over_before']:.2f})"
                      + (f"  bare chroma {row['bare_chroma_p50_ms']:.2f} ms" if t_bare else "")
                      + (f"  [exact path {paths['exact_path_p50_ms']:.1f} ms, index path {paths['index_path_p50_ms']:.1f} ms "
                         f"recall {paths['index_path_recall']:.3f}]" if paths else ""), flush=True)
            report["sets"][kind] = {"build_s": round(build_s, 1), "column_cache_build_s": cache_build_s, "filters": rows}
            store.close()
            shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
