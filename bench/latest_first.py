"""Latest-first retrieval on a large filtered set: ``Collection.newest`` against the obvious
alternatives, on 100,000 chunks that all match the filter.

Usage: .venv/bin/python bench/latest_first.py [--chunks 100000] [--repeat 7]
                                              [--out bench/results/latest-first/latest.json]

One embedded Chroma collection (companies-like schema: ``date``, ``sentiment``, ``organizations``)
holds ``--chunks`` chunks dated over five years, every one mentioning "Graphwise"; vectors are
``HashEmbeddings`` (the store's cost is what is measured, not a model). Scenarios, interleaved
(the order rotates every pass) and reported as medians, since the machine is shared:

- ``newest``: ``Collection.newest`` (growing date windows back from today, ids only, then the
  window's metadata sorted) — what the ``latest`` node runs;
- ``newest_narrow``: the same with ``sentiment > 0.5`` too (~a quarter of the chunks match);
- ``scan_sort``: read every matching chunk's metadata and sort (the naive way);
- ``vector_search``: the ordinary filtered vector search of ``k`` (what latest-first replaces;
  its result is not ordered by date at all).

Each scenario's top-10 ids are checked against the scan's: ``newest`` must return exactly them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chromadb  # noqa: E402

from selfrag.schema import AttributeInfo, CollectionSchema  # noqa: E402
from selfrag.store import Chunk, Store, chroma_settings  # noqa: E402
from selfrag.testing import HashEmbeddings  # noqa: E402
from selfrag.values import date_text  # noqa: E402

TODAY = date(2025, 12, 31)
K = 10
SCHEMA = CollectionSchema(attributes=[
    AttributeInfo(name="date", type="date"),
    AttributeInfo(name="sentiment", type="float"),
    AttributeInfo(name="organizations", type="string[]"),
])


def build(folder: Path, n: int) -> Any:
    client = chromadb.PersistentClient(path=folder / "chroma", settings=chroma_settings())
    store = Store(client, HashEmbeddings(dim=64), batch_size=2000)
    coll = store.create_collection("latest", SCHEMA)
    rng = random.Random(13)
    others = ["Orchard Data", "Paloma Labs", "Cobalt Analytics", "Harbor Bank"]
    batch: list[Chunk] = []
    for i in range(n):
        day = TODAY - timedelta(days=rng.randrange(5 * 365))
        meta = {"date": day.isoformat(), "sentiment": round(rng.uniform(-1, 1), 2),
                "organizations": ["Graphwise", rng.choice(others)]}
        batch.append(Chunk(f"c{i:06d}", f"News item {i} about Graphwise and partners, day {day}.", meta))
        if len(batch) == 2000:
            coll.add(batch)
            batch = []
    if batch:
        coll.add(batch)
    return store, coll


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "latest-first" / "latest.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        store, coll = build(Path(tmp), args.chunks)
        build_s = time.perf_counter() - t0
        where = {"organizations": {"$contains": "Graphwise"}}
        narrow = {"$and": [where, {"sentiment": {"$gt": 0.5}}]}

        def scan_sort(w: dict[str, Any]) -> list[str]:
            # The naive way, on purpose: every match's metadata, in pages (one read of 100,000
            # fails: "too many SQL variables"), then a sort.
            pairs: list[tuple[int, str]] = []
            offset = 0
            while True:
                rows = coll._chroma.get(where=w, include=["metadatas"], limit=5000, offset=offset)  # noqa: SLF001
                pairs.extend((m["date"], i) for i, m in zip(rows["ids"], rows["metadatas"], strict=True))
                if len(rows["ids"]) < 5000:
                    break
                offset += 5000
            pairs.sort(reverse=True)
            return [i for _, i in pairs[:K]]

        scenarios: dict[str, Callable[[], list[str]]] = {
            "newest": lambda: [h.id for h in coll.newest(attribute="date", where=where, k=K, today=TODAY)],
            "newest_narrow": lambda: [h.id for h in coll.newest(attribute="date", where=narrow, k=K, today=TODAY)],
            "scan_sort": lambda: scan_sort(where),
            "vector_search": lambda: [h.id for h in coll.search("latest news about Graphwise", where=where, k=K)],
        }
        expected = {"newest": scan_sort(where), "newest_narrow": scan_sort(narrow)}
        times: dict[str, list[float]] = {name: [] for name in scenarios}
        names = list(scenarios)
        for rep in range(args.repeat):
            order = names[rep % len(names):] + names[: rep % len(names)]
            for name in order:
                t = time.perf_counter()
                ids = scenarios[name]()
                times[name].append((time.perf_counter() - t) * 1000)
                if name in expected:
                    # Same dates as the scan (ties on one day may order differently).
                    got = [coll.get([i])[0].metadata["date"] for i in ids]
                    want = [coll.get([i])[0].metadata["date"] for i in expected[name]]
                    assert got == want, (name, got, want)
        store.close()
    medians = {name: round(statistics.median(v), 1) for name, v in times.items()}
    result = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "chunks": args.chunks,
        "matching": {"newest": args.chunks, "newest_narrow": "about a quarter (sentiment > 0.5)"},
        "k": K,
        "repeat": args.repeat,
        "build_s": round(build_s, 1),
        "median_ms": medians,
        "ratio_scan_over_newest": round(medians["scan_sort"] / medians["newest"], 1),
        "all_ms": {name: [round(x, 1) for x in v] for name, v in times.items()},
        "note": "newest returns exactly the scan's newest dates; vector_search is not date-ordered",
        "dates_span": [date_text(int((TODAY - timedelta(days=5 * 365)).strftime("%Y%m%d"))), TODAY.isoformat()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("chunks", "median_ms", "ratio_scan_over_newest", "build_s")}))


if __name__ == "__main__":
    main()
