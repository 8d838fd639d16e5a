"""Where a warm hybrid question spends its time, on a collection kept by ``bench/lexical_scale.py --keep DIR``.

Usage:
    .venv/bin/python bench/hybrid_profile.py --keep /tmp/wD-scale --size 1000000 [--questions 200] [--no-where]
        [--out bench/results/lexical-scale/profile-1m.json]

One process opens the kept collection and its lexical index as ``lexical_scale.py``'s child does,
warms both, then for each of the scale bench's known-item questions (three words of a chunk and one
word of another) times each part of ``HybridRetriever.search`` on its own:

- **dense**: ``Collection.search`` (embed + Chroma's HNSW query), without and with a ``where``
  (``genre``: 5 % of the chunks; ``year``: 1.3 %);
- **lexical**: ``LexicalIndex.search`` (k = 20, the hybrid's depth), split by the query's shape:
  ``rare`` (a rare term selects the chunks), ``common-and`` (every term common, the AND of all of
  them found ``k``), ``common-or`` (the AND found fewer: the OR of every common term after it),
  with the time of the document-frequency lookup apart and the number of chunks each MATCH selects;
- **read back**: ``ChunkSource.read`` of the lexical hits (text and metadata from Chroma);
- **lexical with where**: ``ChunkSource.matching`` (Chroma evaluates the filter) + the restricted search;
- **fusion**: ``fuse`` of the two lists;
- **hybrid**: the whole ``HybridRetriever.search`` (k = 4), as the scale bench times it.

Prints and writes JSON: p50 / p90 / mean ms for every part, overall and by shape.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lexical_scale as scale  # noqa: E402

WHERES: dict[str, dict[str, Any]] = {"genre": {"genre": "g3"}, "year": {"year": 1960}}


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 2)}


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def shape_of(index: Any, question: str, k: int) -> dict[str, Any]:
    """The query's shape and what each of its MATCH expressions selects (counted apart, untimed)."""
    from selfrag.retrieval import lexical as lx

    tokens = sorted({lx._token(t) for t in lx.lexical_terms(question)})
    with index._conn() as conn:
        df, rare, common = index._split_terms(conn, tokens, index._total(conn))
        count = lambda m: int(conn.execute("SELECT count(*) FROM body WHERE body MATCH ?", (m,)).fetchone()[0])  # noqa: E731
        if rare:
            return {"shape": "rare", "rare_df": [df[t] for t in rare], "common_df": [df[t] for t in common],
                    "selected": count(lx._any(rare))}
        anded = count(" AND ".join(f'"{t}"' for t in common))
        out = {"shape": "common-and" if anded >= k else "common-or", "common_df": [df[t] for t in common],
               "selected": anded}
        if anded < k:
            out["selected_or"] = count(lx._any(common))
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--no-where", action="store_true", help="skip the filtered parts (slow before the fix at 1M)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.no_where:
        WHERES.clear()
    home = args.keep / str(args.size)
    if not (home / "built").exists():
        raise SystemExit(f"no collection kept at {home} (run bench/lexical_scale.py --keep {args.keep} first)")

    from selfrag.retrieval import ChromaChunkSource, HybridRetriever, LexicalIndexes, LexicalRetriever, lexical_terms
    from selfrag.retrieval.fusion import RankedList, fuse

    store = scale.open_store(home)
    coll = store.get_collection("scale")
    body = [str(t) for t in coll._chroma.get(ids=[f"c{i}" for i in range(200)], include=["documents"])["documents"]]
    asked = [q for q, _ in scale.queries(body, args.questions + 1, args.seed)]
    source = ChromaChunkSource(coll._chroma)
    indexes = LexicalIndexes(home / "lexical", max_age_s=None)
    lexical = LexicalRetriever(source, indexes)
    hybrid = HybridRetriever(coll, lexical, resource="scale")
    index = indexes.get(source)
    lexical_terms("warm the lemmatiser")
    start = time.perf_counter()
    hybrid.search(asked[0], k=4)
    for where in WHERES.values():
        coll.search(asked[0], where=where, k=20)
    warm_up_s = time.perf_counter() - start

    parts: dict[str, list[float]] = defaultdict(list)
    by_shape: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    shapes = []
    for question in asked[1:]:
        dense, t = timed(coll.search, question, k=20)
        parts["dense"].append(t)
        for name, where in WHERES.items():
            parts[f"dense_where_{name}"].append(timed(coll.search, question, where=where, k=20)[1])
        with index._conn() as conn:
            tokens = sorted(set(lexical_terms(question)))
            parts["lexical_df_lookup"].append(timed(index._split_terms, conn, tokens, index._total(conn))[1])
        matches, t = timed(index.search, question, 20)
        parts["lexical"].append(t)
        lexical_t = t
        chunks, t = timed(source.read, [m.id for m in matches])
        parts["read_back"].append(t)
        for name, where in WHERES.items():
            among, t = timed(source.matching, where)
            parts[f"lexical_where_{name}_matching"].append(t)
            parts[f"lexical_where_{name}_search"].append(timed(index.search, question, 20, among=among)[1])
        hits = lexical.search(question, k=20)
        lists = [RankedList("dense", "scale", dense), RankedList("lexical", "scale", hits)]
        parts["fusion"].append(timed(fuse, lists, "z", limit=4)[1])
        _, t = timed(hybrid.search, question, k=4)
        parts["hybrid"].append(t)
        shape = shape_of(index, question, 20)  # after the timings: its counts read every posting
        shapes.append({"question": question, **shape, "lexical_ms": round(lexical_t * 1000, 2)})
        by_shape[shape["shape"]]["lexical"].append(lexical_t)
        by_shape[shape["shape"]]["hybrid"].append(t)

    out = {
        "command": " ".join(["bench/hybrid_profile.py", *sys.argv[1:]]),
        "chunks": args.size, "warm_up_s": round(warm_up_s, 2),
        "parts": {name: summary(times) for name, times in parts.items()},
        "by_shape": {shape: {name: summary(times) for name, times in d.items()} for shape, d in by_shape.items()},
        "questions": shapes,
    }
    text = json.dumps(out, indent=2) + "\n"
    if args.out is not None:
        args.out.write_text(text)
    print(json.dumps({k: v for k, v in out.items() if k != "questions"}, indent=2))


if __name__ == "__main__":
    main()
