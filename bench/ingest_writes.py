"""Where ingest's time beside the encoder goes, for the two ways of handing documents to the writer.

Usage: .venv/bin/python bench/ingest_writes.py [--folders 8] [--out bench/results/ingest-speed/writes.json]

The local encoder (all-MiniLM-L6-v2) ingests the same generated folders (``bench/ingest_speed.py``'s
corpus, ~270 chunks each) into two collections, alternating which goes first, folder by folder:

- *whole windows*: what ``Collection.write_documents`` does for an encoder that computes in this
  process (``LocalEmbeddings.computes_in_process``): a window is embedded, then written in one call;
- *beside the encoder*: what it does for an encoder that waits on a remote service: each
  embedding batch's completed documents are written at once, on the writer thread.

Each ingest is timed around every embedding call and every Chroma call, and split into what the
encoder did not overlap: the *head* (before the first embedding: finding, reading, splitting and
checking the files), the *tail* (after the last one: the writes left), the Chroma calls that ran
*inside* the embedding span (an embedded Chroma call holds the GIL throughout, so the encoder
stands still meanwhile), and the *gaps* between embedding calls. Their sum is what ingest adds to
the encoder; the medians over folders are reported (wall times are noisy on a shared machine; the
split is much less so).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest_speed import write_corpus  # noqa: E402


class Timed:
    """A Chroma collection whose calls are timed (start, end, thread)."""

    def __init__(self, chroma: Any, log: list[tuple[str, float, float, str]]) -> None:
        self._chroma = chroma
        self._log = log

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._chroma, name)
        if name not in {"add", "upsert", "get", "delete", "update", "modify", "count"}:
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self._log.append((name, start, time.perf_counter(), threading.current_thread().name))

        return timed


def split(log: list[tuple[str, float, float, str]], start: float, end: float) -> dict[str, float]:
    embeds = [(s, e) for name, s, e, _ in log if name == "embed"]
    first, last = embeds[0][0], embeds[-1][1]
    inside = sum(max(0.0, min(e, last) - max(s, first)) for name, s, e, _ in log if name != "embed")
    gaps = sum(b[0] - a[1] for a, b in zip(embeds, embeds[1:], strict=False))
    row = {"wall_s": end - start, "head_s": first - start, "tail_s": end - last, "chroma_inside_s": inside,
           "gaps_s": gaps, "writes": sum(1 for name, *_ in log if name in {"add", "upsert"})}
    row["added_s"] = row["head_s"] + row["tail_s"] + row["chroma_inside_s"] + row["gaps_s"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=8)
    parser.add_argument("--docs-per-folder", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("bench/results/ingest-speed/writes.json"))
    args = parser.parse_args()

    import chromadb

    from selfrag.ingest import ingest_paths
    from selfrag.providers.embeddings import LocalEmbeddings
    from selfrag.schema import CollectionSchema
    from selfrag.settings import EmbeddingSettings
    from selfrag.store import Store
    from selfrag.store.client import chroma_settings

    log: list[tuple[str, float, float, str]] = []

    class Logged(LocalEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            start = time.perf_counter()
            vectors = super().embed_documents(texts)
            log.append(("embed", start, time.perf_counter(), threading.current_thread().name))
            return vectors

    class Remote(Logged):
        computes_in_process = False  # the same model, handed documents as if it waited on a service

    batch = EmbeddingSettings().batch_size
    modes = {"whole windows": Logged(batch_size=batch), "beside the encoder": Remote(batch_size=batch)}
    for embeddings in modes.values():
        embeddings.embed_documents(["warm up"])
    work = Path(tempfile.mkdtemp(prefix="selfrag-ingest-writes-"))
    rows: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    try:
        corpus = work / "corpus"
        folders = []
        for n in range(args.folders):
            folder = corpus / f"part{n:02d}"
            folder.mkdir(parents=True)
            write_corpus(folder, args.docs_per_folder, seed=7 + n)
            folders.append(folder)
        stores, colls = {}, {}
        for i, (mode, embeddings) in enumerate(modes.items()):
            stores[mode] = Store(chromadb.PersistentClient(path=str(work / f"db{i}"), settings=chroma_settings()),
                                 embeddings, batch_size=batch)
            colls[mode] = stores[mode].create_collection("bench", CollectionSchema())
            colls[mode]._chroma = Timed(colls[mode]._chroma, log)  # type: ignore[assignment]
        for n, folder in enumerate(folders):
            order = list(modes) if n % 2 == 0 else list(reversed(modes))
            for mode in order:
                log.clear()
                start = time.perf_counter()
                ingest_paths(colls[mode], [folder], root=corpus)
                rows[mode].append(split(list(log), start, time.perf_counter()))
                print(f"folder {n + 1}/{len(folders)} {mode}: "
                      + ", ".join(f"{k} {v:.3f}" for k, v in rows[mode][-1].items()), flush=True)
        for store in stores.values():
            store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {
        "command": "bench/ingest_writes.py " + " ".join(sys.argv[1:]),
        "folders": args.folders,
        "median": {mode: {k: round(statistics.median(r[k] for r in rs), 3) for k in rs[0]} for mode, rs in rows.items()},
        "per_folder": {mode: [{k: round(v, 3) for k, v in r.items()} for r in rs] for mode, rs in rows.items()},
    }
    print(json.dumps(summary["median"], indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
