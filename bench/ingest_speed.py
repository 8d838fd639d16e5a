"""Ingest throughput against the raw encoder on the same texts (all-MiniLM-L6-v2, same model object).

Usage: .venv/bin/python bench/ingest_speed.py [--docs 2000] [--slices 10] [--repeat 1]
                                              [--out bench/results/ingest-speed/ingest.json]

Generates ``--docs`` text files of varied length (a seeded lognormal: one sentence to a few
pages, like real folders) in ``--slices`` folders. Each pass ingests them into a fresh collection
of a fresh embedded Chroma, one folder at a time, and pairs every folder with the encoder:

- *ingest*: ``selfrag.ingest.ingest_paths`` of the folder (reading, splitting, embedding, writing:
  everything a user waits for);
- *encoder*: ``SentenceTransformer.encode`` of exactly that folder's chunk texts (read with the
  same ``read_inputs`` beforehand, untimed), one call, the encoder's own length sorting and
  ``--encoder-batch`` texts a pass (default 16, the fastest fixed batch on this machine's CPU in
  ``bench/encoder_batch.py``; sentence-transformers' default is 32): what the hardware can do;
- *batched*: ``LocalEmbeddings.embed_documents`` of the same texts, one call: the encoder with
  exactly the batching ingest uses (passes of ``max_batch_tokens``, at most ``max_batch_texts``
  texts), so that ingest against it is what the pipeline itself costs.

The three rotate which goes first, folder by folder, so all see the same load on a shared
machine. Reports the ratios of total times (ingest's share of each encoder's throughput) and the
medians of the per-folder ratios.

Memory (``--rss-docs 2000,20000``): for each size, a fresh process ingests a generated folder of
that many documents (fake embeddings: this is about what the pipeline holds, not the encoder) and
reports its peak RSS and the peak of its Python heap (``tracemalloc``: what the pipeline holds;
RSS also counts Chroma's in-memory index, which grows with the collection whatever the pipeline
does); a streaming ingest's heap does not grow with the corpus. ``--rss-before DIR``
runs the same with the selfrag package found in ``DIR`` (a checkout of an older commit) for
comparison. ``--skip-speed`` runs only this part.

Overhead (``--overhead 0.02``, alone): what ingest adds to the encoder, measured so that the
machine's load hardly matters. The same folders are ingested with an encoder that only waits
(that many seconds per text, no CPU; random unit vectors) and per folder the bench reports the
wall time before the first embedding call (reading, checking: the encoder idle), after the last
one returned (the writes and lookups left), and the CPU seconds of the whole process (every
thread: reading, checks, Chroma's writes), which a real encoder using every core has to share.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORDS = ["revenue", "quarter", "supply", "chain", "risk", "margin", "growth", "customer", "product", "market", "segment", "cost", "inventory", "demand", "forecast", "guidance", "operating", "income", "cash", "flow", "capital", "expenditure", "debt", "equity", "dividend", "share", "acquisition", "integration", "restructuring", "headcount", "region", "europe", "asia", "americas", "currency", "exchange", "rate", "regulation", "compliance", "litigation", "settlement", "tax", "audit", "pension", "lease", "goodwill", "impairment", "research", "development", "patent", "license", "software", "cloud", "subscription", "hardware", "device", "retail", "wholesale", "channel"]


def write_corpus(folder: Path, docs: int, seed: int = 7) -> int:
    """``docs`` files of 1 to 40 sentences (lognormal, median 5); returns their total characters."""
    rng = random.Random(seed)
    total = 0
    for i in range(docs):
        sentences = max(1, min(40, int(rng.lognormvariate(1.6, 0.8))))
        text = " ".join(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 24))).capitalize() + "." for _ in range(sentences)
        )
        (folder / f"doc{i:05d}.txt").write_text(text, encoding="utf-8")
        total += len(text)
    return total


def rss_child(folder: Path, db: Path) -> None:
    """Ingest ``folder`` with fake embeddings; print the chunks stored and this process's peak RSS."""
    import chromadb

    from selfrag.ingest import ingest_paths
    from selfrag.schema import CollectionSchema
    from selfrag.store import Store
    from selfrag.store.client import chroma_settings
    from selfrag.testing import HashEmbeddings

    store = Store(chromadb.PersistentClient(path=str(db), settings=chroma_settings()), HashEmbeddings(384), batch_size=64)
    coll = store.create_collection("rss", CollectionSchema())
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    report = ingest_paths(coll, [folder], root=folder.parent)
    _, heap_peak = tracemalloc.get_traced_memory()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # RSS includes Chroma's own index, which grows with the collection whatever the pipeline does;
    # the Python heap's peak is what the pipeline itself holds (texts, chunks, vectors, ids).
    print(json.dumps({"chunks": report.chunks, "peak_rss_mb": round(peak / 1024, 1),
                      "rss_before_ingest_mb": round(baseline / 1024, 1),
                      "python_heap_peak_mb": round(heap_peak / 2**20, 1)}))


def measure_rss(sizes: list[int], before: Path | None) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="selfrag-ingest-rss-"))
    rows: dict[str, Any] = {}
    try:
        for size in sizes:
            folder = work / f"corpus{size}" / "docs"
            folder.mkdir(parents=True)
            chars = write_corpus(folder, size)
            row: dict[str, Any] = {"characters": chars}
            for label, path in (("after", None), ("before", before)):
                if label == "before" and path is None:
                    continue
                env = {**os.environ, "PYTHONPATH": str(path.resolve()) if path else os.getcwd()}
                db = work / f"db-{size}-{label}"
                out = subprocess.run([sys.executable, __file__, "--rss-child", str(folder), str(db)],
                                     check=True, capture_output=True, text=True, env=env).stdout
                row[label] = json.loads(out.strip().splitlines()[-1])
                shutil.rmtree(db, ignore_errors=True)
            rows[str(size)] = row
            print(f"{size} documents: " + ", ".join(f"{k} peak RSS {v['peak_rss_mb']} MB, Python heap "
                                                    f"{v['python_heap_peak_mb']} MB ({v['chunks']} chunks)"
                                                    for k, v in row.items() if isinstance(v, dict)), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def measure_overhead(docs: int, slices: int, per_text: float) -> dict[str, Any]:
    """Per folder: head, tail and CPU seconds of ``ingest_paths`` around an encoder that only waits."""
    import chromadb
    import numpy as np
    from langchain_core.embeddings import Embeddings

    from selfrag.ingest import ingest_paths
    from selfrag.schema import CollectionSchema
    from selfrag.store import Store
    from selfrag.store.client import chroma_settings

    class Paced(Embeddings):
        def __init__(self) -> None:
            self.rng = np.random.default_rng(0)
            self.calls: list[tuple[float, float]] = []

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            start = time.perf_counter()
            time.sleep(per_text * len(texts))
            vectors = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            self.calls.append((start, time.perf_counter()))
            return [list(map(float, v)) for v in vectors]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    work = Path(tempfile.mkdtemp(prefix="selfrag-ingest-overhead-"))
    rows: list[dict[str, float]] = []
    try:
        per_slice = -(-docs // slices)
        embeddings = Paced()
        store = Store(chromadb.PersistentClient(path=str(work / "chroma"), settings=chroma_settings()), embeddings)
        coll = store.create_collection("overhead", CollectionSchema())
        for n in range(slices):
            folder = work / "corpus" / f"part{n:02d}"
            folder.mkdir(parents=True)
            write_corpus(folder, min(per_slice, docs - n * per_slice), seed=7 + n)
            embeddings.calls.clear()
            start, cpu = time.perf_counter(), time.process_time()
            ingest_paths(coll, [folder], root=folder.parent)
            end, cpu = time.perf_counter(), time.process_time() - cpu
            rows.append({"wall_s": end - start, "head_s": embeddings.calls[0][0] - start,
                         "tail_s": end - embeddings.calls[-1][1], "cpu_s": cpu})
            print(f"part {n + 1}/{slices}: " + ", ".join(f"{k} {v:.3f}" for k, v in rows[-1].items()), flush=True)
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = {key: round(sum(r[key] for r in rows), 3) for key in rows[0]}
    return {"seconds_per_text": per_text, "total": total,
            "median": {key: round(statistics.median(r[key] for r in rows), 3) for key in rows[0]},
            "per_part": [{k: round(v, 3) for k, v in r.items()} for r in rows]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--slices", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--encoder-batch", type=int, default=16, help="texts a pass of the raw encoder")
    parser.add_argument("--out", type=Path, default=Path("bench/results/ingest-speed/ingest.json"))
    parser.add_argument("--rss-docs", default="", help="comma-separated corpus sizes for the memory measurement")
    parser.add_argument("--rss-before", type=Path, default=None, help="a checkout whose selfrag/ to compare with")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--overhead", type=float, default=None, metavar="SECONDS_PER_TEXT",
                        help="measure only head, tail and CPU around an encoder that waits this long per text")
    parser.add_argument("--rss-child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(*args.rss_child)
        return
    if args.overhead is not None:
        overhead = measure_overhead(args.docs, args.slices, args.overhead)
        print(json.dumps({k: v for k, v in overhead.items() if k != "per_part"}, indent=2))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": "bench/ingest_speed.py " + " ".join(sys.argv[1:]),
                                        "overhead": overhead}, indent=2) + "\n")
        return
    memory = measure_rss([int(n) for n in args.rss_docs.split(",") if n], args.rss_before) if args.rss_docs else None
    if args.skip_speed:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": "bench/ingest_speed.py " + " ".join(sys.argv[1:]),
                                        "peak_rss": memory}, indent=2) + "\n")
        return

    import chromadb

    from selfrag.ingest import ingest_paths
    from selfrag.ingest.files import collect_files
    from selfrag.ingest.prepare import read_inputs
    from selfrag.providers.embeddings import MINILM_SHA256, LocalEmbeddings, _load, default_minilm_dir
    from selfrag.schema import CollectionSchema
    from selfrag.settings import EmbeddingSettings
    from selfrag.store import Store
    from selfrag.store.client import chroma_settings

    work = Path(tempfile.mkdtemp(prefix="selfrag-ingest-bench-"))
    corpus = work / "corpus"
    per_slice = -(-args.docs // args.slices)
    chars = 0
    folders = []
    for n in range(args.slices):
        folder = corpus / f"part{n:02d}"
        folder.mkdir(parents=True)
        chars += write_corpus(folder, min(per_slice, args.docs - n * per_slice), seed=7 + n)
        folders.append(folder)
    schema = CollectionSchema()
    texts = [[c.text for d in read_inputs(schema, collect_files([f], root=corpus)).documents for c in d.chunks]
             for f in folders]
    batch = EmbeddingSettings().batch_size
    embeddings = LocalEmbeddings(batch_size=batch)
    model = _load(default_minilm_dir(), MINILM_SHA256).model
    model.encode(["warm up"], show_progress_bar=False)

    ingest_s: list[float] = []
    encoder_s: list[float] = []
    batched_s: list[float] = []
    steps = ("ingest", "encoder", "batched")
    try:
        for rep in range(args.repeat):
            path = work / f"chroma{rep}"
            store = Store(chromadb.PersistentClient(path=str(path), settings=chroma_settings()), embeddings, batch_size=batch)
            coll = store.create_collection("bench", schema)
            for n, folder in enumerate(folders):
                shift = (rep + n) % len(steps)
                for step in steps[shift:] + steps[:shift]:
                    start = time.perf_counter()
                    if step == "ingest":
                        report = ingest_paths(coll, [folder], root=corpus)
                        ingest_s.append(time.perf_counter() - start)
                        assert report.embedded == len(texts[n]), (report.embedded, len(texts[n]))
                    elif step == "encoder":
                        model.encode(texts[n], batch_size=args.encoder_batch, normalize_embeddings=True,
                                     show_progress_bar=False)
                        encoder_s.append(time.perf_counter() - start)
                    else:
                        embeddings.embed_documents(texts[n])
                        batched_s.append(time.perf_counter() - start)
                print(f"pass {rep + 1} part {n + 1}/{len(folders)}: {len(texts[n])} chunks, "
                      f"ingest {ingest_s[-1]:.1f} s, encoder {encoder_s[-1]:.1f} s, batched {batched_s[-1]:.1f} s",
                      flush=True)
            store.close()
            shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    chunks = sum(len(t) for t in texts) * args.repeat
    ratios = [e / i for i, e in zip(ingest_s, encoder_s, strict=True)]
    batched_ratios = [e / i for i, e in zip(ingest_s, batched_s, strict=True)]
    summary = {
        "command": "bench/ingest_speed.py " + " ".join(sys.argv[1:]),
        "documents": args.docs, "chunks_per_pass": chunks // args.repeat, "characters": chars,
        "slices": args.slices, "repeat": args.repeat, "encoder_batch": args.encoder_batch,
        "max_batch_tokens": embeddings.max_batch_tokens, "max_batch_texts": embeddings.max_batch_texts,
        "ingest_chunks_per_s": round(chunks / sum(ingest_s), 1),
        "encoder_chunks_per_s": round(chunks / sum(encoder_s), 1),
        "batched_encoder_chunks_per_s": round(chunks / sum(batched_s), 1),
        "ingest_over_encoder_total": round(sum(encoder_s) / sum(ingest_s), 3),
        "ingest_over_encoder_p50": round(statistics.median(ratios), 3),
        "ingest_over_batched_total": round(sum(batched_s) / sum(ingest_s), 3),
        "ingest_over_batched_p50": round(statistics.median(batched_ratios), 3),
        "ingest_over_encoder_per_part": [round(r, 3) for r in ratios],
        "raw_ingest_s": [round(s, 2) for s in ingest_s], "raw_encoder_s": [round(s, 2) for s in encoder_s],
        "raw_batched_s": [round(s, 2) for s in batched_s],
    }
    if memory is not None:
        summary["peak_rss"] = memory
    print(json.dumps(summary, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
