"""Hybrid retrieval as a collection grows: what one added document, a fresh process's first question
and the lexical index cost at 10k, 100k (and 1M) chunks.

Usage:
    .venv/bin/python bench/lexical_scale.py [--sizes 10000 100000] [--adds 5] [--questions 40]
        [--code DIR] [--keep DIR] [--out bench/results/lexical-scale/after.json]

``--code DIR`` runs another checkout's ``selfrag`` (e.g. the code before issue 29, exported with
``git archive``) through the same public API, so the same script measures before and after. ``--keep DIR`` builds each size in ``DIR/<size>`` and leaves it
there; a later run with the same ``DIR`` reuses it (the seed regenerates the same texts), so a 1M
collection (~30 min to build here) is built once.

For each size, an embedded Chroma collection gets that many chunks straight from Chroma's ``add``
(the write path is not what is measured here): clustered 384-d vectors as ``filtered_retrieval.py``
makes them, texts of 40 words drawn from a Zipf-distributed vocabulary of 30,000 made-up words,
and the metadata a real ingest writes (``doc_id``, ``doc_hash``, ``year``, ``genre``). Then:

- **index build**: the lexical index's first ``refresh`` (the whole collection, once);
- **add one document** (3 chunks, vectors from a table: no encoder): ``Collection.write_documents``
  and the lexical ``refresh`` after it, each timed, median of ``--adds``; then the first question
  after the add (the previous code rebuilt its bm25s index there). The ids are new on every run and
  the documents are deleted afterwards (``delete_document`` and the refresh after it, timed), so a
  kept collection measures real adds each time and does not grow;
- **a fresh process** (a child): opens the store and the index directory, runs one dense-only
  search (Chroma loads its HNSW index), then the first hybrid question (timed), then ``--questions``
  warm ones (p50, p90); RSS before and after the hybrid questions (``VmRSS``, ``VmHWM``): their
  difference is what the lexical side holds;
  ``--page-cache`` sets what the OS holds of the collection's files when the child starts: ``warm``
  reads every file once first (a server that has been answering: the state "warm questions" means),
  ``cold`` drops the page cache (root only; a machine just booted), ``as-is`` leaves it. At 1M the
  files are 4.3 GB, and whatever else ran before decides how much of them is cached: ``as-is``
  warm p50 went from 24 ms to 220 ms between runs minutes apart with the same code;
- **index bytes** per chunk (every file under ``lexical/``);
- **ranking against bm25s** (the previous engine, Lucene BM25 over the same ``lexical_terms``):
  known-item queries (three words of a chunk and one common word), recall@4 of the chunk for both
  engines and the overlap of their top 10 (sizes up to 100k: bm25s needs ~13 KB a chunk).

Writes JSON (one object per size) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

DIM = 384
VOCAB = 30_000
WORDS_PER_CHUNK = 40
BATCH = 5000


def words(rng: np.random.Generator) -> list[str]:
    """Made-up, pronounceable words (no stop words, no real lemmas to fold)."""
    syllables = ["ka", "lo", "mi", "ru", "ze", "ta", "vo", "ni", "pe", "su", "da", "gi", "xo", "be", "fu", "qa"]
    out: set[str] = set()
    while len(out) < VOCAB:
        out.add("".join(rng.choice(syllables, size=int(rng.integers(3, 5)))))
    return sorted(out)


def texts(n: int, vocab: list[str], rng: np.random.Generator) -> list[str]:
    ranks = np.minimum(rng.zipf(1.2, size=(n, WORDS_PER_CHUNK)), VOCAB) - 1
    return [" ".join(vocab[r] for r in row) for row in ranks.tolist()]


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


class TableEmbeddings:
    """Embeddings for the bench: a text's vector is a seeded random direction (no model)."""

    computes_in_process = False

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        rng = np.random.default_rng(abs(hash(text)) % (2**32))
        return unit(rng.standard_normal((1, DIM)))[0].tolist()


def rss() -> dict[str, int]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields


def open_store(home: Path) -> Any:
    import chromadb

    from selfrag.store import Store, chroma_settings

    client = chromadb.PersistentClient(path=str(home / "chroma"), settings=chroma_settings())
    return Store(client, TableEmbeddings())  # type: ignore[arg-type]


def build(home: Path, n: int, seed: int) -> list[str]:
    from selfrag.schema import AttributeInfo, CollectionSchema

    rng = np.random.default_rng(seed)
    vocab = words(rng)
    body = texts(n, vocab, rng)
    if (home / "built").exists():  # kept by an earlier run (--keep): the same seed gives the same texts
        return body
    centres = unit(rng.standard_normal((200, DIM)))
    store = open_store(home)
    schema = CollectionSchema(attributes=[AttributeInfo(name="year", type="integer"), AttributeInfo(name="genre", type="string")])
    coll = store.create_collection("scale", schema)
    for start in range(0, n, BATCH):
        end = min(start + BATCH, n)
        which = rng.integers(0, len(centres), end - start)
        vectors = unit(centres[which] + 0.7 * rng.standard_normal((end - start, DIM)) / np.sqrt(DIM))
        coll._chroma.add(
            ids=[f"c{i}" for i in range(start, end)],
            embeddings=vectors,
            documents=body[start:end],
            metadatas=[{"doc_id": f"c{i}", "doc_hash": f"h{i}", "year": 1950 + i % 75, "genre": f"g{i % 20}"}
                       for i in range(start, end)],
        )
    (home / "built").write_text(str(n))
    return body


def queries(body: list[str], count: int, seed: int) -> list[tuple[str, str]]:
    """(question, the chunk it was drawn from)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        j = rng.randrange(len(body))
        terms = body[j].split()
        out.append((" ".join([*rng.sample(terms, 3), body[rng.randrange(len(body))].split()[0]]), f"c{j}"))
    return out


def child(home: Path, n_questions: int, seed: int) -> dict[str, Any]:
    """A fresh process: open, one dense search, the first hybrid question, warm ones."""
    t0 = time.perf_counter()
    from selfrag.retrieval import ChromaChunkSource, HybridRetriever, LexicalIndexes, LexicalRetriever

    store = open_store(home)
    coll = store.get_collection("scale")
    body = [str(t) for t in coll._chroma.get(ids=[f"c{i}" for i in range(200)], include=["documents"])["documents"]]
    asked = queries(body, n_questions + 1, seed)
    coll.search("warm up the dense side", k=4)
    opened_s = time.perf_counter() - t0
    from selfrag.retrieval import lexical_terms

    lexical_terms("load the lemmatiser's tables")  # a fixed ~25 MB whatever the collection: not per chunk
    before = rss()
    lexical = LexicalRetriever(ChromaChunkSource(coll._chroma), LexicalIndexes(home / "lexical"))
    hybrid = HybridRetriever(coll, lexical, resource="scale")
    start = time.perf_counter()
    hybrid.search(asked[0][0], k=4)
    first_s = time.perf_counter() - start
    warm = []
    for question, _ in asked[1:]:
        start = time.perf_counter()
        hybrid.search(question, k=4)
        warm.append(time.perf_counter() - start)
    after = rss()
    return {
        "open_and_dense_s": round(opened_s, 3),
        "first_hybrid_s": round(first_s, 3),
        "warm_hybrid_ms": {"p50": round(statistics.median(warm) * 1000, 2),
                           "p90": round(sorted(warm)[int(0.9 * len(warm))] * 1000, 2), "n": len(warm)},
        "rss_before_hybrid": before["VmRSS"],
        "rss_after_hybrid": after["VmRSS"],
        "peak_rss": after["VmHWM"],
    }


def ranking(home: Path, body: list[str], count: int, seed: int) -> dict[str, Any]:
    """Known-item recall@4 of the index and of bm25s (Lucene BM25) on the same terms, and their top-10 overlap."""
    import bm25s

    from selfrag.retrieval import ChromaChunkSource, LexicalIndexes, lexical_terms

    store = open_store(home)
    index = LexicalIndexes(home / "lexical").get(ChromaChunkSource(store.get_collection("scale")._chroma))
    model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    model.index([lexical_terms(t) for t in body], create_empty_token=True, show_progress=False)
    vocab = {t: i for t, i in model.vocab_dict.items() if t}
    found = {"index": 0, "bm25s": 0}
    overlap = []
    asked = queries(body, count, seed + 1)
    for question, gold in asked:
        ours = [m.id for m in index.search(question, 10)]
        ids = sorted({vocab[t] for t in lexical_terms(question) if t in vocab})
        scores = model.get_scores_from_ids(ids)
        order = np.lexsort((np.arange(len(scores)), -scores))[:10]
        theirs = [f"c{int(i)}" for i in order if scores[i] > 0]
        found["index"] += gold in ours[:4]
        found["bm25s"] += gold in theirs[:4]
        overlap.append(len(set(ours) & set(theirs)) / max(1, len(theirs)))
    return {"queries": len(asked), "recall@4_index": found["index"] / len(asked),
            "recall@4_bm25s": found["bm25s"] / len(asked), "top10_overlap": round(statistics.fmean(overlap), 4)}


def page_cache(home: Path, mode: str) -> dict[str, Any]:
    """Put the collection's files in (``warm``) or out of (``cold``) the OS page cache, timed."""
    start = time.perf_counter()
    if mode == "warm":
        for path in sorted(p for p in home.rglob("*") if p.is_file()):
            with path.open("rb") as fh:
                while fh.read(1 << 24):
                    pass
    elif mode == "cold":
        os.sync()
        try:
            Path("/proc/sys/vm/drop_caches").write_text("3\n")
        except OSError as exc:
            raise SystemExit(f"--page-cache cold needs to write /proc/sys/vm/drop_caches (root): {exc.strerror}") from None
    return {"mode": mode, "prepare_s": round(time.perf_counter() - start, 2)}


def measure(n: int, args: argparse.Namespace) -> dict[str, Any]:
    from selfrag.retrieval import ChromaChunkSource, LexicalIndexes, LexicalRetriever
    from selfrag.store import Chunk, DocumentVersion

    if args.keep is not None:
        home = args.keep / str(n)
        home.mkdir(parents=True, exist_ok=True)
    else:
        home = Path(tempfile.mkdtemp(prefix=f"selfrag-lexical-scale-{n}-", dir=args.tmp))
    try:
        start = time.perf_counter()
        body = build(home, n, args.seed)
        out: dict[str, Any] = {"chunks": n, "load_s": round(time.perf_counter() - start, 1)}
        store = open_store(home)
        coll = store.get_collection("scale")
        source = ChromaChunkSource(coll._chroma)
        indexes = LexicalIndexes(home / "lexical")
        start = time.perf_counter()
        indexes.refresh(source)
        out["index_build_s"] = round(time.perf_counter() - start, 2)
        lexical = LexicalRetriever(source, indexes)
        lexical.search("warm", k=4)
        write, refresh, next_question, delete, delete_refresh = [], [], [], [], []
        # Ids new to the collection on every run (a kept collection already holds earlier runs'
        # ids, and writing an unchanged document again is a no-op), deleted again afterwards.
        tag = "".join("abcdefghijklmnop"[int(c, 16)] for c in f"{time.time_ns():x}")  # letters: one term
        for a in range(args.adds):
            doc_id, word = f"added-{tag}-{a}", f"addition{tag}{'abcdefghij'[a % 10]}"
            doc = DocumentVersion(doc_id, f"v{a}", tuple(
                Chunk(f"{doc_id}#{j}", f"{body[a * 7 + j]} {word}", {"year": 2000, "genre": "g1"}) for j in range(3)))
            start = time.perf_counter()
            coll.write_documents([doc])
            write.append(time.perf_counter() - start)
            start = time.perf_counter()
            indexes.refresh(source)
            refresh.append(time.perf_counter() - start)
            start = time.perf_counter()
            hits = lexical.search(word, k=4)
            next_question.append(time.perf_counter() - start)
            assert hits and hits[0].id.startswith(f"{doc_id}#"), hits
        for a in range(args.adds):
            start = time.perf_counter()
            coll.delete_document(f"added-{tag}-{a}")
            delete.append(time.perf_counter() - start)
            start = time.perf_counter()
            indexes.refresh(source)
            delete_refresh.append(time.perf_counter() - start)
            gone = [h.id for h in lexical.search(f"addition{tag}{'abcdefghij'[a % 10]}", k=4) if h.id.startswith(f"added-{tag}-{a}#")]
            assert not gone, f"added-{tag}-{a} still found after its delete: {gone}"
        out["add_one_document_s"] = {
            "write": round(statistics.median(write), 3), "lexical_refresh": round(statistics.median(refresh), 3),
            "next_lexical_question": round(statistics.median(next_question), 3),
        }
        out["delete_one_document_s"] = {
            "delete": round(statistics.median(delete), 3), "lexical_refresh": round(statistics.median(delete_refresh), 3),
        }
        lexical_bytes = sum(p.stat().st_size for p in (home / "lexical").iterdir())
        out["index_bytes"] = lexical_bytes
        out["index_bytes_per_chunk"] = round(lexical_bytes / n, 1)
        del indexes, lexical, store, coll
        prepared = page_cache(home, args.page_cache)
        proc = subprocess.run(
            [sys.executable, __file__, "--child", str(home), "--questions", str(args.questions), "--code", str(args.code)],
            capture_output=True, text=True, check=True,
        )
        fresh = json.loads(proc.stdout.strip().splitlines()[-1])
        fresh["page_cache"] = prepared
        fresh["lexical_rss_per_chunk"] = round((fresh["rss_after_hybrid"] - fresh["rss_before_hybrid"]) / n, 1)
        out["fresh_process"] = fresh
        if n <= args.ranking_max:
            out["ranking_vs_bm25s"] = ranking(home, body, args.ranking_queries, args.seed)
        return out
    finally:
        if args.keep is None:
            shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--adds", type=int, default=5)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--ranking-queries", type=int, default=200)
    parser.add_argument("--ranking-max", type=int, default=100_000, help="largest size compared with bm25s")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose selfrag is measured")
    parser.add_argument("--tmp", type=Path, default=None, help="where the collections are built")
    parser.add_argument("--keep", type=Path, default=None,
                        help="build each size in DIR/<size> and keep it; a later run with the same DIR reuses it")
    parser.add_argument("--page-cache", choices=("as-is", "warm", "cold"), default="as-is",
                        help="the collection's files in the OS page cache when the fresh process starts")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/lexical-scale/after.json")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code))
    if args.child is not None:
        print(json.dumps(child(args.child, args.questions, args.seed)))
        return
    results = []
    for n in args.sizes:
        results.append(measure(n, args))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": " ".join(["bench/lexical_scale.py", *sys.argv[1:]]),
                                        "code": str(args.code), "sizes": results}, indent=2) + "\n")
    print(f"{'chunks':>8} {'build s':>8} {'write s':>8} {'refresh s':>9} {'first q s':>9} {'warm p50 ms':>11} "
          f"{'lex RSS B/chunk':>15} {'index B/chunk':>13}")
    for r in results:
        f = r["fresh_process"]
        print(f"{r['chunks']:>8} {r['index_build_s']:>8} {r['add_one_document_s']['write']:>8} "
              f"{r['add_one_document_s']['lexical_refresh']:>9} {f['first_hybrid_s']:>9} {f['warm_hybrid_ms']['p50']:>11} "
              f"{f['lexical_rss_per_chunk']:>15} {r['index_bytes_per_chunk']:>13}")


if __name__ == "__main__":
    main()
