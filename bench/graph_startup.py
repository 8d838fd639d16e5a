"""Embedded FalkorDB start-up: cold start (empty, and with the companies graph on disk), reuse of a
running server, shutdown, and whole ``selfrag kg list`` commands.

Usage: .venv/bin/python bench/graph_startup.py [--repeat 15] [--cli-repeat 5]
                                               [--out bench/results/graph-startup/startup.json]

Scenarios, interleaved (each pass runs them all, in an order rotated every pass) and reported as
medians, since the machine is shared:

- ``cold_empty``: ``open_graph_store`` on a data directory with no server and no data (spawn
  redis-server + module, wait for PING, verify it is ours), then ``ping``;
- ``cold_with_graph``: the same with the companies sample graph persisted there (its load included);
- ``reuse``: another user holds the server; open (adopt: read state, PING, CONFIG GET dir), ping;
- ``shutdown``: the last user's ``close`` (SHUTDOWN SAVE, wait for the process to exit);
- ``cli_cold`` / ``cli_reuse``: ``selfrag kg list`` as a process, without / with a server kept up
  by another process (Python start and imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selfrag.kg import EmbeddedGraphServer, open_graph_store, read_edges, read_nodes  # noqa: E402

SAMPLE = ROOT / "selfrag" / "samples" / "companies" / "graph"


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def cold_empty(base: Path) -> dict[str, float]:
    home = Path(tempfile.mkdtemp(dir=base))
    ms, store = _timed(lambda: open_graph_store(home))
    stop_ms, _ = _timed(store.close)
    return {"cold_empty": ms, "shutdown": stop_ms}


def cold_with_graph(home: Path) -> dict[str, float]:
    ms, store = _timed(lambda: open_graph_store(home))
    store.close()
    return {"cold_with_graph": ms}


def reuse(home: Path) -> dict[str, float]:
    holder = EmbeddedGraphServer(home / "graph")
    holder.acquire()
    try:
        ms, store = _timed(lambda: open_graph_store(home))
        store.close()
    finally:
        holder.release()
    return {"reuse": ms}


def cli(home: Path, *, held: bool) -> dict[str, float]:
    env = {**os.environ, "SELFRAG_HOME": str(home)}
    holder = EmbeddedGraphServer(home / "graph") if held else None
    if holder:
        holder.acquire()
    try:
        t0 = time.perf_counter()
        subprocess.run([str(ROOT / ".venv" / "bin" / "selfrag"), "kg", "list"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        ms = (time.perf_counter() - t0) * 1000
    finally:
        if holder:
            holder.release()
    return {"cli_reuse" if held else "cli_cold": ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--cli-repeat", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        loaded = base / "loaded"
        with open_graph_store(loaded) as store:
            store.load("companies", read_nodes(SAMPLE / "nodes.jsonl"), read_edges(SAMPLE / "edges.jsonl"))
        scenarios: list[Callable[[], dict[str, float]]] = [
            lambda: cold_empty(base), lambda: cold_with_graph(loaded), lambda: reuse(loaded),
        ]
        for i in range(args.repeat):
            k = i % len(scenarios)
            for run in scenarios[k:] + scenarios[:k]:
                for name, ms in run().items():
                    samples.setdefault(name, []).append(ms)
        for i in range(args.cli_repeat):
            for held in ((False, True) if i % 2 == 0 else (True, False)):
                for name, ms in cli(loaded, held=held).items():
                    samples.setdefault(name, []).append(ms)
    report = {
        "command": " ".join(["bench/graph_startup.py", *sys.argv[1:]]),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} CPUs, shared with other work",
        "median_ms": {k: round(statistics.median(v), 1) for k, v in samples.items()},
        "min_ms": {k: round(min(v), 1) for k, v in samples.items()},
        "max_ms": {k: round(max(v), 1) for k, v in samples.items()},
        "runs": {k: len(v) for k, v in samples.items()},
    }
    print(json.dumps(report, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
