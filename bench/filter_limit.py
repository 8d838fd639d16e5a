"""How many values one metadata filter may hold before Chroma refuses the query.

Usage: .venv/bin/python bench/filter_limit.py [--json out.json]

Chroma binds every value of a ``where`` clause (each ``$in``/``$nin`` item, each compared value)
as one SQLite variable; past SQLite's variable limit the query fails with an internal error
("too many SQL variables") that used to reach API clients as a 503. This measures that limit on
the embedded store, for a single ``$in`` list and for the same values split across an ``$or`` of
two lists, by bisection over real queries on a small collection, and prints the largest accepted
size of each. ``selfrag.query.MAX_FILTER_VALUES`` is set well below the smaller of the two.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chromadb

from selfrag.store import chroma_settings


def _largest(accepts: Callable[[int], bool], low: int, high: int) -> int:
    """The largest n in [low, high) that ``accepts``, assuming acceptance is monotone."""
    if not accepts(low):
        return 0
    while high - low > 1:
        mid = (low + high) // 2
        if accepts(mid):
            low = mid
        else:
            high = mid
    return low


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="Write the figures to this file too.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="selfrag-filter-limit-") as tmp:
        client = chromadb.PersistentClient(path=tmp, settings=chroma_settings())
        coll = client.create_collection("limit", configuration={"hnsw": {"space": "cosine"}}, embedding_function=None)
        coll.add(ids=[f"d{i}" for i in range(10)], embeddings=[[float(i), 1.0, 0.0] for i in range(10)],
                 metadatas=[{"name": f"n{i}"} for i in range(10)], documents=[f"doc {i}" for i in range(10)])
        errors: dict[str, str] = {}

        def query(where: dict[str, Any], label: str) -> bool:
            try:
                coll.query(query_embeddings=[[1.0, 1.0, 0.0]], n_results=3, where=where)  # type: ignore[arg-type]
                return True
            except Exception as exc:  # Chroma's refusal is what we measure
                errors[label] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
                return False

        def single(n: int) -> bool:
            return query({"name": {"$in": [f"v{i}" for i in range(n)]}}, "single $in")

        def split(n: int) -> bool:
            half = [f"v{i}" for i in range(n // 2)]
            return query({"$or": [{"name": {"$in": half}}, {"name": {"$nin": half}}]}, "$or of two lists")

        start = time.perf_counter()
        figures = {
            "single_in_max": _largest(single, 1, 200_000),
            "or_of_two_lists_max_total": _largest(split, 2, 200_000),
        }
        client.close()  # type: ignore[attr-defined]
    result = {
        "figures": figures,
        "refusals": errors,
        "seconds": round(time.perf_counter() - start, 1),
        "chromadb": chromadb.__version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
