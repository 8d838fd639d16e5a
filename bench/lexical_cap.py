"""Warm lexical search time and known-item recall under different ``COMMON_CAP`` values, on a
collection kept by ``bench/lexical_scale.py --keep DIR`` (or ``bench/write_split.py``).

Usage:
    .venv/bin/python bench/lexical_cap.py --keep /tmp/wD-scale --size 200000 --caps 0 1000 2000 5000

``0`` means no cap (the share ``COMMON_FRACTION`` alone, as before). For each cap: p50 / p90 of
``LexicalIndex.search(question, 20)`` over ``--questions`` of the scale bench's known-item questions
(three words of a chunk and one common word), recall@4 of the chunk, and the overlap of the top 10
with the uncapped search's. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lexical_scale as scale  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--caps", type=int, nargs="+", default=[0, 1000, 2000, 5000])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    home = args.keep / str(args.size)
    body = scale.build(home, args.size, args.seed)

    import selfrag.retrieval.lexical as lexical_module
    from selfrag.retrieval import ChromaChunkSource, LexicalIndexes

    store = scale.open_store(home)
    index = LexicalIndexes(home / "lexical").get(ChromaChunkSource(store.get_collection("scale")._chroma))
    asked = scale.queries(body, args.questions, args.seed + 1)
    base: dict[str, list[str]] = {}
    out = []
    for cap in args.caps:
        lexical_module.COMMON_CAP = cap or 10**12
        index.search(asked[0][0], 20)
        times, found, overlap = [], 0, []
        for question, gold in asked:
            start = time.perf_counter()
            top = [m.id for m in index.search(question, 20)]
            times.append(time.perf_counter() - start)
            found += gold in top[:4]
            if cap == args.caps[0]:
                base[question] = top[:10]
            overlap.append(len(set(top[:10]) & set(base[question])) / max(1, len(base[question])))
        times.sort()
        out.append({"cap": cap, "p50_ms": round(statistics.median(times) * 1000, 2),
                    "p90_ms": round(times[int(0.9 * len(times))] * 1000, 2), "recall@4": found / len(asked),
                    f"top10_overlap_with_cap_{args.caps[0]}": round(statistics.fmean(overlap), 4)})
        print(json.dumps(out[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"chunks": args.size, "questions": len(asked), "caps": out}, indent=1))


if __name__ == "__main__":
    main()
