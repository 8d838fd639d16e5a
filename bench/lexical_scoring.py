"""Old and new scoring of a large collection's lexical questions, alternated in one process, on a
collection kept by ``bench/lexical_scale.py --keep DIR``.

Usage:
    .venv/bin/python bench/lexical_scoring.py --keep /tmp/wD-scale --size 1000000 [--questions 200] [--score-limit N]
        [--out bench/results/lexical-scale/scoring-1m.json]

``old`` is the query of session 14 (FTS5 ``bm25()`` over every chunk the selecting terms match:
``(rare) AND (rare OR common)``, or the AND of all-common terms, then their OR), rebuilt here from the
index's own pieces; ``new`` is ``LexicalIndex.search`` (at most ``SCORE_LIMIT`` chunks read and
scored in Python). Each question is asked of both, in alternating order, k = 20 (the hybrid's
depth). Reports p50 / p90 ms overall and by shape (``rare``: a rare term selects; ``common``: every
term common), the known item's recall@4 under each, and the top-10 overlap of new with old.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lexical_scale as scale  # noqa: E402


def old_search(index: Any, question: str, k: int) -> tuple[list[str], str]:
    from selfrag.retrieval import lexical as lx

    tokens = sorted({lx._token(t) for t in lx.lexical_terms(question)})
    with index._conn() as conn:
        _, rare, common = index._split_terms(conn, tokens, index._total(conn))
        if rare:
            match = lx._any(rare) if not common else f"({lx._any(rare)}) AND ({lx._any([*rare, *common])})"
            rows = index._search(conn, match, k, None)
        elif common:
            rows = index._search(conn, " AND ".join(f'"{t}"' for t in common), k, None)
            if len(rows) < k:
                rows = index._search(conn, lx._any(common), k, None)
        else:
            rows = []
    return [str(i) for i, _ in rows], "rare" if rare else "common"


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    if not ordered:
        return {"n": 0}
    return {"n": len(ordered), "p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--score-limit", type=int, default=None, help="LexicalIndex's SCORE_LIMIT for this run")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    home = args.keep / str(args.size)
    if not (home / "built").exists():
        raise SystemExit(f"no collection kept at {home}")
    import selfrag.retrieval.lexical as lexical_module
    from selfrag.retrieval.lexical import LexicalIndex

    if args.score_limit is not None:
        lexical_module.SCORE_LIMIT = args.score_limit

    # The known item's chunk: the bench's texts regenerated from the seed (as lexical_scale.py's ranking does).
    body = scale.build(home, args.size, args.seed)
    asked = scale.queries(body, args.questions, args.seed + 1)
    index = LexicalIndex(home / "lexical" / "scale.sqlite3")
    index.search(asked[0][0], 20)
    old_search(index, asked[0][0], 20)
    times: dict[str, dict[str, list[float]]] = {v: {"all": [], "rare": [], "common": []} for v in ("old", "new")}
    found = {"old": 0, "new": 0}
    overlap = []
    for n, (question, gold) in enumerate(asked):
        got: dict[str, list[str]] = {}
        took: dict[str, float] = {}
        shape = ""
        for variant in (("old", "new") if n % 2 == 0 else ("new", "old")):
            start = time.perf_counter()
            if variant == "old":
                got["old"], shape = old_search(index, question, 20)
            else:
                got["new"] = [m.id for m in index.search(question, 20)]
            took[variant] = time.perf_counter() - start
        for variant, elapsed in took.items():
            times[variant]["all"].append(elapsed)
            times[variant][shape].append(elapsed)
        for variant in ("old", "new"):
            found[variant] += gold in got[variant][:4]
        overlap.append(len(set(got["new"][:10]) & set(got["old"][:10])) / max(1, len(got["old"][:10])))
    out = {
        "command": " ".join(["bench/lexical_scoring.py", *sys.argv[1:]]),
        "chunks": args.size, "questions": len(asked), "score_limit": lexical_module.SCORE_LIMIT,
        "ms": {v: {s: summary(t) for s, t in d.items()} for v, d in times.items()},
        "p50_ratio_new_over_old": round(statistics.median(times["new"]["all"]) / statistics.median(times["old"]["all"]), 3),
        "recall@4": {v: found[v] / len(asked) for v in found},
        "top10_overlap_new_with_old": round(statistics.fmean(overlap), 4),
    }
    text = json.dumps(out, indent=2) + "\n"
    if args.out is not None:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
