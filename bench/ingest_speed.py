"""Ingest throughput against the raw encoder on the same texts (all-MiniLM-L6-v2, same model object).

Usage: .venv/bin/python bench/ingest_speed.py [--docs 2000] [--repeat 3]
                                              [--out bench/results/ingest-speed/ingest.json]

Generates ``--docs`` text files of varied length (a seeded lognormal: a few sentences to a few
pages, like real folders), then alternates, ``--repeat`` times each:

- *ingest*: ``selfrag.ingest.ingest_paths`` of the folder into a fresh collection of a fresh
  embedded Chroma (reading, splitting, embedding, writing: everything a user waits for);
- *encoder*: ``SentenceTransformer.encode`` of exactly the chunk texts that ingest stored, one call,
  the encoder's own batch size and length sorting (what the hardware can do).

Reports chunks/s of each (medians) and their ratio: ingest's share of the encoder's throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/ingest-speed/ingest.json"))
    args = parser.parse_args()

    import chromadb

    from selfrag.ingest import ingest_paths
    from selfrag.providers.embeddings import MINILM_SHA256, LocalEmbeddings, _load, default_minilm_dir
    from selfrag.schema import CollectionSchema
    from selfrag.settings import EmbeddingSettings
    from selfrag.store import Store
    from selfrag.store.client import chroma_settings

    work = Path(tempfile.mkdtemp(prefix="selfrag-ingest-bench-"))
    corpus = work / "corpus"
    corpus.mkdir()
    chars = write_corpus(corpus, args.docs)
    batch = EmbeddingSettings().batch_size
    embeddings = LocalEmbeddings(batch_size=batch)
    model = _load(default_minilm_dir(), MINILM_SHA256).model
    model.encode(["warm up"], show_progress_bar=False)

    texts: list[str] = []
    ingest_s: list[float] = []
    encoder_s: list[float] = []

    def run_ingest(rep: int) -> None:
        path = work / f"chroma{rep}"
        client = chromadb.PersistentClient(path=str(path), settings=chroma_settings())
        store = Store(client, embeddings, batch_size=batch)
        coll = store.create_collection("bench", CollectionSchema())
        start = time.perf_counter()
        report = ingest_paths(coll, [corpus])
        ingest_s.append(time.perf_counter() - start)
        if not texts:
            got = coll._chroma.get(include=["documents"])
            texts.extend(d or "" for d in got["documents"] or [])
        assert report.embedded == len(texts), (report.embedded, len(texts))
        store.close()
        shutil.rmtree(path, ignore_errors=True)

    def run_encoder() -> None:
        start = time.perf_counter()
        model.encode(texts, batch_size=batch, normalize_embeddings=True, show_progress_bar=False)
        encoder_s.append(time.perf_counter() - start)

    for rep in range(args.repeat):
        # Alternate the order; the first pass ingests first (it collects the texts).
        for step in ("ingest", "encoder") if rep % 2 == 0 else ("encoder", "ingest"):
            run_ingest(rep) if step == "ingest" else run_encoder()
        print(f"pass {rep + 1}/{args.repeat}: ingest {ingest_s[-1]:.1f} s, encoder {encoder_s[-1]:.1f} s", flush=True)

    chunks = len(texts)
    ingest_rate = chunks / statistics.median(ingest_s)
    encoder_rate = chunks / statistics.median(encoder_s)
    ratios = [e / i for i, e in zip(ingest_s, encoder_s, strict=True)]
    summary = {
        "command": "bench/ingest_speed.py " + " ".join(sys.argv[1:]),
        "documents": args.docs, "chunks": chunks, "characters": chars, "repeat": args.repeat,
        "ingest_chunks_per_s_p50": round(ingest_rate, 1),
        "encoder_chunks_per_s_p50": round(encoder_rate, 1),
        "ingest_over_encoder_p50": round(encoder_rate / ingest_rate, 3),
        "ingest_over_encoder_per_pass": [round(r, 3) for r in ratios],
        "raw_ingest_s": [round(s, 2) for s in ingest_s], "raw_encoder_s": [round(s, 2) for s in encoder_s],
    }
    print(json.dumps(summary, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
